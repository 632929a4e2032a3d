"""The table `benches/elasticflow_figures.sh` prints: each run's deadline
ratio beside ElasticFlow's simulator's (the fixtures' runs.csv and
benches/elasticflow_simulator.csv) and the paper's plotted value.

usage: python3 benches/elasticflow_table.py RESULTS START END
RESULTS: lines "figure run cluster scheduler ratio" (run "-" where a figure has one trace).
"""

import csv
import sys

FIXTURE_RUNS = "tests/fixtures/elasticflow/runs.csv"
# Runs whose traces are not in ../shared (Figure 8b's clusters 06-10, from
# microsoft/elasticflow-traces) or whose known answers the tests keep
# elsewhere (gandiva's, tests/it/elasticflow_fidelity.rs): ElasticFlow's
# simulator's `accepted jobs:` and `declined jobs:`, made 2026-11-29 as
# tests/fixtures/elasticflow/README.md says (runs stopped after 5 minutes
# are not here).
MORE = "benches/elasticflow_simulator.csv"
PEER = {"elasticflow": "ef-accessctrl"}

# The paper's plotted values (ElasticFlow's plot/plot_fig8a.py, 8b, 9 and
# 11(a); ../shared/peers/elasticflow-figures.md §2). Figure 10 plots
# cluster efficiency over time: no ratio.
FIG8B = {
    "edf": [0.182, 0.228, 0.095, 0.007, 0.375, 0.105, 0.046, 0.252, 0.800, 0.769, 0.01],
    "gandiva": [0.246, 0.286, 0.314, 0.228, 0.228, 0.381, 0.351, 0.325, 0.329, 0.354, 0.15],
    "dlas-gpu": [0.478, 0.470, 0.401, 0.120, 0.420, 0.466, 0.346, 0.373, 0.468, 0.473, 0.32],
    "themis": [0.464, 0.431, 0.389, 0.432, 0.430, 0.425, 0.437, 0.423, 0.456, 0.431, 0.33],
    "ef-accessctrl": [0.788, 0.822, 0.455, 0.631, 0.832, 0.607, 0.665, 0.896, 0.938, 0.981, 0.87],
}
FIG11 = {
    "edf": [0.09, 0.1, 0.15, 0.15, 0.23, 0.28, 0.44, 0.79, 0.95],
    "gandiva": [0.25, 0.24, 0.2, 0.18, 0.19, 0.17, 0.18, 0.18, 0.16],
    "dlas-gpu": [0.46, 0.46, 0.44, 0.42, 0.43, 0.41, 0.44, 0.5, 0.53],
    "themis": [0.41, 0.4, 0.37, 0.34, 0.36, 0.34, 0.35, 0.42, 0.37],
    "ef-accessctrl": [0.74, 0.67, 0.67, 0.69, 0.68, 0.76, 0.82, 0.92, 0.95],
}
FIG9 = {"n8g8": {"edf": 0.026, "edf-accessctrl": 0.203, "ef": 0.452, "ef-accessctrl": 0.926},
        "n16g8": {"edf": 0.118, "edf-accessctrl": 0.326, "ef": 0.835, "ef-accessctrl": 0.949},
        "n32g8": {"edf": 0.118, "edf-accessctrl": 0.658, "ef": 0.939, "ef-accessctrl": 0.944}}
FIG8A = {"edf": 0.118, "gandiva": 0.09, "dlas-gpu": 0.287, "themis": 0.312,
         "ef-accessctrl": 0.728}
# themis: the optimisation's best shares are not unique where jobs
# contend, and ECOS (there) and Clarabel (here) pick differently: equal
# within this much.
THEMIS_WITHIN = 0.02


def paper(fig, run, spec, s):
    if fig == "8a":
        return FIG8A.get(s)
    if fig == "8b":
        i = 10 if run == "philly" else int(run[-2:]) - 1
        return FIG8B.get(s, [None] * 11)[i]
    if fig == "9":
        return FIG9[spec].get(s)
    if fig == "11":
        return FIG11.get(s, [None] * 9)[int(float(run) * 10) - 1]
    return None


def key_of_fixture(run, spec):
    """(figure, run, cluster) of a fixtures' run name."""
    if run == "fig8a":
        return ("8a", "-", spec)
    if run.startswith("fig9-"):
        return ("9", "-", run[5:])
    if run == "fig10":
        return ("10", "-", spec)
    if run.startswith("fig11-"):
        return ("11", run[6:], spec)
    return ("8b", run, spec)


def simulator():
    sim = {}
    for r in csv.DictReader(open(FIXTURE_RUNS)):
        if r["accepted"]:  # (empty where the run was stopped)
            fig, run, spec = key_of_fixture(r["run"], r["cluster_spec"])
            s = PEER.get(r["schedule"], r["schedule"])
            sim[(fig, run, spec, s)] = int(r["accepted"]) / int(r["of"] or r["jobs"])
    for r in csv.DictReader(open(MORE)):
        a, d = int(r["accepted"]), int(r["declined"])
        sim[(r["figure"], r["run"], r["cluster_spec"], r["schedule"])] = a / (a + d)
    return sim


def main():
    ours = [line.split() for line in open(sys.argv[1])]
    sim = simulator()
    fmt = lambda x: "-" if x is None else "%.3f" % x
    print("| figure | run | cluster | scheduler | tracetui | simulator | paper |")
    print("|---|---|---|---|---|---|---|")
    equal = known = near = themis = 0
    for fig, run, spec, s, ratio in ours:
        mine = float(ratio)
        peer = sim.get((fig, run, spec, s))
        if peer is not None and s == "themis":
            themis += 1
            near += abs(peer - mine) <= THEMIS_WITHIN
        elif peer is not None:
            known += 1
            equal += abs(peer - mine) < 1e-9
        print("| %s | %s | %s | %s | %.3f | %s | %s |"
              % (fig, run, spec, s, mine, fmt(peer), fmt(paper(fig, run, spec, s))))
    print("%d runs in %.1f s; %d of the %d with a simulator ratio equal to it "
          "(themis: %d of %d within %.2f)"
          % (len(ours), float(sys.argv[3]) - float(sys.argv[2]), equal, known,
             near, themis, THEMIS_WITHIN))


if __name__ == "__main__":
    main()
