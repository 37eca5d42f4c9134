#!/bin/bash
# The 1M long runs in this folder: every structure (300 whole frames, then the fresh build on the same
# frames), one process each, in parallel, and the AABB tree's long runs at 10k and 100k. Run beside a
# spheretest-bench binary and its libbox2d.so.2, with OUT naming a folder for the results.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD
B=$PWD/spheretest-bench
N=${N:-1M}; STEADY=${STEADY:-300}; LIMIT=${LIMIT:-330}
S=$(date +%s)
for s in grid grid-replicated hgrid quadtree fit-quadtree loose-quadtree radius-tree enneatree sphere-tree aabb-tree; do
  timeout $LIMIT $B --n $N --scenes spheretest --structures $s --frames 5 --settle 1 --queries 0 --steady $STEADY --time-cap 3000 --memory-cap-gb 0 --plot off --out /tmp/m-$s > /tmp/m-$s.log 2>&1 &
done
timeout $LIMIT $B --n 10k,100k --scenes spheretest --structures aabb-tree --frames 10 --queries 0 --steady 3600 --time-cap 900 --memory-cap-gb 0 --plot off --out /tmp/aabb > /tmp/aabb.log 2>&1 &
wait
echo "took $(( $(date +%s)-S )) s"
first=1
for s in grid grid-replicated hgrid quadtree fit-quadtree loose-quadtree radius-tree enneatree sphere-tree aabb-tree; do
  f=/tmp/m-$s/results.csv
  if [ ! -f $f ]; then echo "missing $s"; tail -2 /tmp/m-$s.log; continue; fi
  if [ $first = 1 ]; then cat $f; first=0; else tail -n +2 $f; fi
done > $OUT/longrun-1M.csv
cp /tmp/aabb/results.csv $OUT/longrun-aabb.csv 2>/dev/null || tail -3 /tmp/aabb.log
grep -h "FAILED\|NOT met" /tmp/m-*.log /tmp/aabb.log | grep -v "no peer"
