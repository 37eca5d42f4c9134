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
1000000 84.186897
1000000 50.58042
EOD
$d0_1 << EOD
1000000 212.11348
1000000 137.158922
EOD
$d0_2 << EOD
1000000 213.715035
1000000 140.840733
EOD
$d0_3 << EOD
1000000 230.474824
1000000 203.958189
EOD
set title 'spheretest'
plot $d0_0 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title 'grid', \
     $d0_1 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title 'loose-quadtree', \
     $d0_2 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title 'sphere-tree', \
     $d0_3 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#9467bd' title 'aabb-tree'
unset multiplot
