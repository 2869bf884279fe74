/** Tree-shaken echarts: only the renderer, charts and components the dashboard draws. */
import { use } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, DatasetComponent } from 'echarts/components';

use([CanvasRenderer, BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, DatasetComponent]);

export type { EChartsCoreOption as ChartOption } from 'echarts/core';
