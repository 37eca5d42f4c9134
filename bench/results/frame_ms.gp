# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot frame_ms.gp
set terminal pngcairo size 560,620 font 'Sans,10'
set output 'frame_ms.png'
set multiplot layout 1,1 title "ms per frame: update of the moved circles + all pairs\nCPU time, median; dashed: peers"
set logscale xy
set grid
set xlabel 'circles'
set ylabel 'CPU ms per frame'
set format x '%.0s%c'
set key top left font ',8'
set xrange [*:*]
$d0_0 << EOD
1000 1.672706
10000 167.607376
EOD
$d0_1 << EOD
1000 0.042542
10000 0.6401485
100000 5.9767265
1000000 54.727734
EOD
$d0_2 << EOD
1000 0.1474255
10000 1.9896665
100000 21.6975945
1000000 163.545891
EOD
$d0_3 << EOD
1000 0.181806
10000 2.018306
100000 16.830536
1000000 185.539684
EOD
$d0_4 << EOD
1000 0.05256
10000 0.8032245
100000 6.5033235
1000000 97.789143
EOD
$d0_5 << EOD
1000 0.095808
10000 1.3307015
100000 12.063943
1000000 162.924119
EOD
$d0_6 << EOD
1000 0.0761845
10000 1.0067175
100000 8.7963955
1000000 104.605437
EOD
$d0_7 << EOD
1000 0.12169
10000 1.3017445
100000 10.9880385
1000000 168.018937
EOD
$d0_8 << EOD
1000 0.144575
10000 2.145791
100000 19.646333
1000000 209.79399
EOD
$d0_9 << EOD
1000 0.0841845
10000 1.3010235
100000 12.737647
1000000 177.22963
EOD
$d0_10 << EOD
1000 0.133515
10000 1.504292
100000 14.975675
1000000 170.960125
EOD
$d0_11 << EOD
1000 0.6865535
10000 14.099626
100000 220.645591
EOD
$d0_12 << EOD
1000 0.4462765
10000 6.8587615
100000 65.0310655
1000000 740.888054
EOD
set title 'spheretest'
plot $d0_0 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title 'brute', \
     $d0_1 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title 'grid', \
     $d0_2 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title 'grid-replicated', \
     $d0_3 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#9467bd' title 'hgrid', \
     $d0_4 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#ff7f0e' title 'quadtree', \
     $d0_5 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#17becf' title 'fit-quadtree', \
     $d0_6 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#8c564b' title 'loose-quadtree', \
     $d0_7 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#e377c2' title 'radius-tree', \
     $d0_8 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#7f7f7f' title 'enneatree', \
     $d0_9 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#bcbd22' title 'sphere-tree', \
     $d0_10 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#393b79' title 'aabb-tree', \
     $d0_11 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#637939' title 'box2d-tree', \
     $d0_12 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title 'boost-rtree'
unset multiplot
