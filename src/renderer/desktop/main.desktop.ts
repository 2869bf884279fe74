import { createApp } from 'vue';
import { findBridge } from '../platform/desktop/bridgeClient.js';
import { applyTheme } from '../theme/colourTheme.js';
import DesktopShell from './DesktopShell.vue';
import { createDesktopState } from './desktopState.js';
import './desktop.css';

// The chosen (or the system's) theme from the first paint, before any dashboard is mounted.
applyTheme();
const bridge = findBridge();
const root = document.getElementById('app')!;
if (!bridge) {
  root.textContent = 'This page is the Svc Monitor desktop console and must run inside the desktop app.';
} else {
  const controller = createDesktopState(bridge);
  void controller.start().then(() => createApp(DesktopShell, { controller }).mount(root));
}
