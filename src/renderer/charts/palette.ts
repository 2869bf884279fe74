/** Chart colours per theme (kept in step with the CSS variables of styles/app.css). */
export interface ChartPalette {
  text: string;
  muted: string;
  grid: string;
  surface: string;
  status: Record<string, string>;
  series: string[];
}

const STATUS_LIGHT: Record<string, string> = {
  Completed: '#2f9e44',
  Failed: '#e03131',
  InProgress: '#1c7ed6',
  Queued: '#7048e8',
  Pending: '#868e96',
  WaitingQueue: '#f08c00',
  Cancelled: '#e8590c',
  ServiceStopped: '#ae3ec9',
};
const STATUS_DARK: Record<string, string> = {
  Completed: '#51cf66',
  Failed: '#ff6b6b',
  InProgress: '#4dabf7',
  Queued: '#9775fa',
  Pending: '#adb5bd',
  WaitingQueue: '#ffa94d',
  Cancelled: '#ff922b',
  ServiceStopped: '#da77f2',
};

export function chartPalette(theme: 'light' | 'dark'): ChartPalette {
  return theme === 'dark'
    ? {
        text: '#d9dee7',
        muted: '#8b95a7',
        grid: '#2a3140',
        surface: '#181c24',
        status: STATUS_DARK,
        series: ['#4dabf7', '#51cf66', '#ff6b6b', '#ffa94d', '#9775fa', '#3bc9db', '#f783ac', '#ffd43b'],
      }
    : {
        text: '#1f2430',
        muted: '#5c6573',
        grid: '#e6e9ef',
        surface: '#ffffff',
        status: STATUS_LIGHT,
        series: ['#1c7ed6', '#2f9e44', '#e03131', '#f08c00', '#7048e8', '#1098ad', '#d6336c', '#f59f00'],
      };
}
