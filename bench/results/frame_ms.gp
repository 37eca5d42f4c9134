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
1000 1.2677215
10000 118.252122
EOD
$d0_1 << EOD
1000 0.065097
10000 0.5800765
100000 7.5823475
1000000 66.2231925
EOD
$d0_2 << EOD
1000 0.1509515
10000 1.503515
100000 17.718492
1000000 180.162046
EOD
$d0_3 << EOD
1000 0.161967
10000 2.072138
100000 16.21704
1000000 182.810797
EOD
$d0_4 << EOD
1000 0.128375
10000 1.7389755
100000 23.298252
1000000 396.130589
EOD
$d0_5 << EOD
1000 0.1504605
10000 1.749025
100000 21.0245325
1000000 368.846558
EOD
$d0_6 << EOD
1000 0.117199
10000 1.309975
100000 18.449427
1000000 262.936049
EOD
$d0_7 << EOD
1000 0.1530405
10000 1.483469
100000 15.855586
1000000 209.678676
EOD
$d0_8 << EOD
1000 0.1810425
10000 1.6698215
100000 19.206795
1000000 245.774924
EOD
$d0_9 << EOD
1000 0.1288715
10000 1.5105045
100000 17.09054
1000000 247.276318
EOD
$d0_10 << EOD
1000 0.168244
10000 1.825573
100000 18.1591895
1000000 231.971699
EOD
$d0_11 << EOD
1000 0.687268
10000 12.2051515
100000 233.47838
EOD
$d0_12 << EOD
1000 0.4648325
10000 5.7502375
100000 71.14003
1000000 742.074823
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
