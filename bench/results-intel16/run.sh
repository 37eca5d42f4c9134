#!/bin/bash
# The figures in this folder: run beside a spheretest-bench binary (and the libbox2d.so.2 it links), with
# OUT naming a folder for the results. Scale (100k, 1M, one run after another, on the whole machine), then
# the long runs (one process per structure, in parallel, each its own long-against-fresh ratio).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD
B=$PWD/spheretest-bench
SCALE_N=${SCALE_N:-100k,1M}; LONG_N=${LONG_N:-10k,100k}; STEADY=${STEADY:-3600}; MEM_N=${MEM_N:-1M}
{ nproc; lscpu | grep -E "Model name|^CPU\(s\)|L3"; grep -o -E "avx512f|avx2" /proc/cpuinfo | sort | uniq -c; free -g | head -2; } > $OUT/machine.txt 2>&1
S=$(date +%s)
$B --n $SCALE_N --scenes spheretest --skip brute,box2d-tree --frames 10 --queries 1000 --time-cap 600 --memory-cap-gb 0 --plot off --out $OUT/scale > $OUT/scale.log 2>&1
echo "scale rc=$? took $(( $(date +%s)-S )) s" | tee -a $OUT/machine.txt
S=$(date +%s)
for s in grid grid-replicated hgrid quadtree fit-quadtree loose-quadtree radius-tree enneatree sphere-tree aabb-tree; do
  $B --n $LONG_N --scenes spheretest --structures $s --frames 10 --queries 0 --steady $STEADY --time-cap 900 --memory-cap-gb 0 --plot off --out /tmp/lr-$s > /tmp/lr-$s.log 2>&1 &
done
$B --n $MEM_N --scenes spheretest --structures aabb-tree,quadtree,loose-quadtree --threads 2 --frames 3 --queries 0 --memory-cap-gb 0 --plot off --out /tmp/mem2 > /tmp/mem2.log 2>&1 &
wait
echo "long runs took $(( $(date +%s)-S )) s" | tee -a $OUT/machine.txt
first=1
for s in grid grid-replicated hgrid quadtree fit-quadtree loose-quadtree radius-tree enneatree sphere-tree aabb-tree; do
  f=/tmp/lr-$s/results.csv
  if [ ! -f $f ]; then echo "missing $s"; tail -3 /tmp/lr-$s.log; continue; fi
  if [ $first = 1 ]; then cat $f; first=0; else tail -n +2 $f; fi
done > $OUT/longrun.csv
grep -h "FAILED\|NOT met" /tmp/lr-*.log >> $OUT/machine.txt
cp /tmp/mem2/results.csv $OUT/mem2.csv 2>/dev/null
cat $OUT/machine.txt
