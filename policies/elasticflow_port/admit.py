"""Which jobs elasticflow can plan, and the GPU counts each may hold (the
built-in's `admit.rs`): its throughput table's columns (on the cluster's
one GPU type) up to the cap ElasticFlow sets per model and batch size
(`models.py` `get_max_gpu`; T4 caps when the tables are T4's, else
A100's, as ElasticFlow treats every type but T4), and at most its batch
size. Here the work left, rows and levels come from the messages.
"""

from .job import BEST_EFFORT, EJob


def first_table(speeds):
    """(GPU type, whether its table is T4's) of the cluster's first table
    (the start message's `speeds`); None without tables."""
    if not speeds or not speeds.get("tables"):
        return None
    t0 = speeds["tables"][0]
    name = t0.get("table") or ""
    return t0["gpu_type"], name[-2:].upper() == "T4"


def job_of(vj, table):
    """The job `vj` (a tracetui_policy Job) as elasticflow plans it, on
    `table` (`first_table`); None when it cannot be planned (no work or
    table row)."""
    ddl = vj.deadline if vj.deadline is not None else BEST_EFFORT
    if table is None or vj.work is None:
        return None
    iters = vj.work_left
    if iters is None:
        return None
    gpu_type, t4 = table
    row = (vj.rates or {}).get(gpu_type)
    if not row:
        return None
    batch = vj.batch_size
    model = vj.model or ""
    top = vj.levels[-1] if vj.levels else 0
    cap = min(max_gpu(model, batch, t4), top)
    levels = [(c, r) for c, r in row if c <= cap]
    if not levels:
        return None
    return EJob(ddl, iters, levels)


def max_gpu(model, batch, t4):
    """ElasticFlow's most GPUs for a model at a batch size."""
    if t4:
        if model in ("bert", "cifar10"):
            return 16
        if model == "deepspeech2" and batch == 320:
            return 32
        if model == "yolov3":
            return 4
        if model == "ncf":
            return 1
        return 64
    b = min(batch, 64)
    if model == "deepspeech2":
        return batch
    table = {("gpt2", 128): 16, ("gpt2", 256): 32, ("bert", 64): 8,
             ("inception3", 64): 16, ("inception3", 128): 32,
             ("resnet50", 64): 32, ("vgg16", 64): 32}
    if (model, batch) in table:
        return table[(model, batch)]
    if model == "bert":
        return 16
    return b
