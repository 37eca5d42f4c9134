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
1000 2.0026805
10000 129.108951
EOD
$d0_1 << EOD
1000 0.0891165
10000 0.807725
100000 8.8837715
1000000 94.6650205
EOD
$d0_2 << EOD
1000 0.182998
10000 1.889869
100000 20.0296055
1000000 192.099845
EOD
$d0_3 << EOD
1000 0.2034715
10000 2.167415
100000 23.0847
1000000 245.572153
EOD
$d0_4 << EOD
1000 0.169177
10000 1.4909055
100000 25.7530305
1000000 520.607943
EOD
$d0_5 << EOD
1000 0.1838
10000 2.1118105
100000 33.817219
1000000 552.981913
EOD
$d0_6 << EOD
1000 0.142437
10000 1.796164
100000 24.470249
1000000 305.13871
EOD
$d0_7 << EOD
1000 0.167439
10000 1.8866085
100000 20.65024
1000000 238.776548
EOD
$d0_8 << EOD
1000 0.2412525
10000 2.0338095
100000 28.3976455
1000000 288.147523
EOD
$d0_9 << EOD
1000 0.201352
10000 2.047911
100000 20.5771975
1000000 257.870464
EOD
$d0_10 << EOD
1000 0.196499
10000 1.7408405
100000 19.8289595
1000000 246.38877
EOD
$d0_11 << EOD
1000 0.597666
10000 14.2953955
100000 303.614948
EOD
$d0_12 << EOD
1000 0.524749
10000 5.710651
100000 87.532544
1000000 968.058884
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
