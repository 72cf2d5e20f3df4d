/** uPlot and its styles: a chunk of their own, loaded when the Reports page first draws a chart. */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export { uPlot };
