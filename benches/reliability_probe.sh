#!/bin/bash
# The third reliability probe's cases (issue 63), rerun from the repository root:
# each prints its item, the exit code and the line that matters. Needs ../shared/traces,
# python3, setpriv and prlimit. usage: benches/reliability_probe.sh [BINARY]
R=$(pwd); B=$(realpath "${1:-target/x86_64-unknown-linux-gnu/release/tracetui}"); S=$R/sample-traces/itp/sample.csv
A=$R/../shared/traces/elasticflow-artifact; EF=$R/../shared/traces/itp/elasticflow/cluster01.csv
W=$(mktemp -d); cd "$W"; trap 'rm -rf "$W"' EXIT
say() { printf '%-5s rc=%-3s %s\n' "$1" "$2" "$(echo "$3" | tr '\n' ' ' | cut -c1-150)"; }
one() { local item=$1; shift; out=$("$@" 2>&1); say "$item" $? "$(echo "$out" | grep -E 'error|refus|^jobs|warning' | head -1)"; }
# 1 outputs onto inputs
printf 'num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,16,4,64,256\n' > cs.csv; cp cs.csv cs.orig
one 1a $B sim itp $A/elasticVpollux_e.csv --cluster cs.csv --throughputs $A/throughputs_T4 --jobs-out cs.csv
cmp -s cs.csv cs.orig && say 1a- 0 "cs.csv unchanged" || say 1a- 1 "cs.csv CHANGED"
one 1b $B sim itp $S --plot /dev/null
ls /dev/null.* >/dev/null 2>&1 && say 1b- 1 "/dev/null.* CREATED" || say 1b- 0 "nothing created in /dev"
mkdir -p out; printf 'trace = "itp:out/results.csv"\npolicy = "fifo"\n' > p1.toml; echo x > out/results.csv
one 1c $B sweep p1.toml --out out
# 2 drops in every summary
printf 'import json,sys\nfor l in sys.stdin:\n  m=json.loads(l)\n  if m["type"]=="hello": print(json.dumps({"name":"drop","walk":"greedy","protocol":2}),flush=True)\n  elif m["type"]=="schedule": print(json.dumps({"drop":[j["job"] for j in m.get("arrived",[]) if j["gpus"]>=8]}),flush=True)\n  else: print("{}",flush=True)\n' > droplong.py
out=$($B compare itp $S --policies "fifo,exec:python3 droplong.py" --format csv 2>&1); say 2 $? "$(echo "$out" | head -1 | grep -o 'jobs_dropped' ) $(echo "$out" | sed -n 3p | cut -d, -f1-9)"
# 3 lesson runs nothing on open
printf 'name = "x"\ngpus = 8\ngpus_per_machine = 8\nschedule = "start:exec:touch ran-it; exec python3 fifo.py"\n[gen]\njobs = 10\nseed = 1\nload = 0.5\n' > ex.toml
one 3 $B lesson ex.toml; [ -e ran-it ] && say 3- 1 "COMMAND RAN" || say 3- 0 "nothing ran"
# 4 lesson bounded
ln -sf /dev/zero z.toml; one 4a timeout 20 $B lesson z.toml
python3 -c "
print('name=\"big\"\ngpus=8\ngpus_per_machine=8\nschedule=\"fifo\"')
for i in range(500): print('[[jobs]]\nat=0\nruntime=60\ngpus=1\ncount=100000')" > big.toml
one 4b timeout 60 $B lesson big.toml
mkfifo ff.toml 2>/dev/null; one 4c timeout 20 $B lesson ff.toml
# 5 absurd speeds
one 5a $B sim pai $R/sample-traces/pai --gpu-speed T4=1e-15
one 5b $B sim itp $S --gpu-speed V100=1e-6
one 5c $B sim itp $S --las-starve 1e300 --policy las
one 5d $B sim itp $S --preempt-cost 4294967295 --policy las
# 6 -j 1000 under a pid limit
printf 'trace = "itp:%s"\npolicy = ["fifo","sjf"]\ngpus = [64,72,80,88]\n' $S > p6.toml
one 6 setpriv prlimit --nproc=60 -- $B sweep p6.toml --out o6 -j 1000
# 7 elastic on small specs
for s in n1g1 n1g2 n1g4 n2g2 n1g8; do one "7-$s" $B sim itp $EF --cluster $A/cluster_specs/$s.csv --throughputs $A/throughputs_A100 --policy elasticflow; done
one 7-g3 $B sim itp $EF --gpus 24 --gpus-per-node 3 --throughputs $A/throughputs_A100 --policy elasticflow
one 7-g63 $B sim itp $EF --gpus 63 --throughputs $A/throughputs_A100 --policy gandiva
# 8 long list
python3 -c "print('trace = \"itp:$S\"\npolicy = \"fifo\"\ngpus = [' + ','.join(str(8+i) for i in range(150000)) + ']')" > p8.toml
out=$( { /usr/bin/time -f 'peak %M KB %e s' $B sweep p8.toml --out o8 --shard 1/100000; } 2>&1 ); say 8 $? "$(echo "$out" | tail -1)"
# 12 FIFO among the tables
mkdir -p tt; cp $A/throughputs_T4/*.csv tt/; mkfifo tt/zz.csv; one 12 timeout 20 $B sim itp $A/elasticVpollux_e.csv --cluster $A/cluster_specs/n16g4.csv --throughputs tt
# 13 ratio that is no share
printf 'import json,sys\nfor l in sys.stdin:\n  m=json.loads(l)\n  if m["type"]=="hello": print(json.dumps({"name":"own","walk":"greedy","protocol":2}),flush=True)\n  else: print(json.dumps({"deadline_admitted":[10**18,1]}),flush=True)\n' > own.py
one 13 $B sim itp $A/elasticVpollux_e.csv --cluster $A/cluster_specs/n16g4.csv --throughputs $A/throughputs_T4 --policy "exec:python3 own.py"
# 15 lesson gen load
printf 'name = "x"\ngpus = 8\ngpus_per_machine = 8\nschedule = "fifo"\n[gen]\njobs = 10\nseed = 1\nload = -1\n' > l15.toml; one 15 $B lesson l15.toml
# lows
printf 'trace = "itp:%s"\npolicy = "fifo"\ngpus = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]\nseed = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]\npreempt-cost = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]\nlas-starve = [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]\n' $S > lo1.toml; one low-runs $B sweep lo1.toml --out olo
printf 'trace = "itp:%s"\npolicy = "false"\n' $S > lo2.toml; one low-false $B sweep lo2.toml --out olo2
printf 'trace = "itp:%s"\nhelp = true\n' $S > lo3.toml; one low-help $B sweep lo3.toml --out olo3
