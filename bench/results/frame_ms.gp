# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot frame_ms.gp
set terminal pngcairo size 560,620 font 'Sans,10'
set output 'frame_ms.png'
set multiplot layout 1,1 title 'ms per frame (update of moved circles + all pairs; CPU time, median); dashed: peers'
set logscale xy
set grid
set xlabel 'circles'
set ylabel 'CPU ms per frame'
set format x '%.0s%c'
set key top left font ',8'
set xrange [*:*]
$d0_0 << EOD
1000 2.0037275
10000 139.989206
EOD
$d0_1 << EOD
1000 0.083667
10000 1.007635
100000 10.4769795
1000000 88.117716
EOD
$d0_2 << EOD
1000 0.140969
10000 1.5167145
100000 20.832557
1000000 159.444039
EOD
$d0_3 << EOD
1000 0.173099
10000 2.4997025
100000 26.600304
1000000 229.434968
EOD
$d0_4 << EOD
1000 0.119449
10000 1.6785025
100000 33.5122025
1000000 433.452951
EOD
$d0_5 << EOD
1000 0.1460985
10000 2.9735315
100000 36.4751295
1000000 405.471014
EOD
$d0_6 << EOD
1000 0.1061845
10000 2.3673005
100000 30.256136
1000000 276.117962
EOD
$d0_7 << EOD
1000 0.1314015
10000 1.891773
100000 22.301772
1000000 229.527777
EOD
$d0_8 << EOD
1000 0.17596
10000 2.9552675
100000 31.680708
1000000 310.72011
EOD
$d0_9 << EOD
1000 0.147071
10000 2.227783
100000 29.7499405
1000000 317.834632
EOD
$d0_10 << EOD
1000 0.186475
10000 2.5239685
100000 26.2575665
1000000 303.791374
EOD
$d0_11 << EOD
1000 0.643567
10000 19.3003885
100000 335.759555
EOD
$d0_12 << EOD
1000 0.531837
10000 6.853068
100000 89.753428
1000000 1001.67606
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
