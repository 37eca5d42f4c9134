#!/bin/bash
# The sphere tree's long runs with and without regrouping (sphere-tree.regroup 8, the default, and 0), at
# 10k and 100k (3,600 whole frames) and at 1M (300), four processes at once. Run beside a spheretest-bench
# binary and its libbox2d.so.2, with OUT naming a folder for the results.
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD
B=$PWD/spheretest-bench
S=$(date +%s)
for g in 8 0; do
  timeout 300 $B --n 1M --scenes spheretest --structures sphere-tree --frames 5 --settle 1 --queries 1000 --steady 300 --time-cap 3000 --memory-cap-gb 0 --plot off --set sphere-tree.regroup=$g --out /tmp/s1m-$g > /tmp/s1m-$g.log 2>&1 &
  timeout 300 $B --n 10k,100k --scenes spheretest --structures sphere-tree --frames 10 --queries 1000 --steady 3600 --time-cap 900 --memory-cap-gb 0 --plot off --set sphere-tree.regroup=$g --out /tmp/s100k-$g > /tmp/s100k-$g.log 2>&1 &
done
wait
echo "took $(( $(date +%s)-S )) s"
for g in 8 0; do cp /tmp/s1m-$g/results.csv $OUT/sphere-1M-regroup$g.csv; cp /tmp/s100k-$g/results.csv $OUT/sphere-100k-regroup$g.csv; done
grep -h "FAILED" /tmp/s*.log
