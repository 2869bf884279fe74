import { join } from 'node:path';
import { z } from 'zod';
import { readJsonFile } from '../files/readJsonFile.js';
import { writeFileAtomic } from '../files/writeFileAtomic.js';

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}
export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 800, maximized: false };
export const WINDOW_STATE_FILE = 'window-state.json';

const schema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(20_000),
  height: z.number().int().min(300).max(20_000),
  maximized: z.boolean(),
});

/**
 * Keeps a remembered window on a display that still exists: a position whose title bar is
 * not inside any work area is dropped (the window is then centred), and the size is
 * clamped to the largest work area.
 */
export function fitToDisplays(state: WindowState, workAreas: readonly Rectangle[]): WindowState {
  if (workAreas.length === 0) return state;
  const maxW = Math.max(...workAreas.map((a) => a.width));
  const maxH = Math.max(...workAreas.map((a) => a.height));
  const width = Math.min(state.width, maxW);
  const height = Math.min(state.height, maxH);
  if (state.x === undefined || state.y === undefined) return { width, height, maximized: state.maximized };
  const { x, y } = state;
  const titleBarVisible = workAreas.some((a) => x + 100 > a.x && x < a.x + a.width - 50 && y >= a.y && y < a.y + a.height - 40);
  return titleBarVisible ? { x, y, width, height, maximized: state.maximized } : { width, height, maximized: state.maximized };
}

export async function loadWindowState(userDataDir: string): Promise<WindowState> {
  const raw = await readJsonFile(join(userDataDir, WINDOW_STATE_FILE)).catch(() => undefined);
  const parsed = schema.safeParse(raw);
  return parsed.success ? (Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as unknown as WindowState) : { ...DEFAULT_WINDOW_STATE };
}

export async function saveWindowState(userDataDir: string, state: WindowState): Promise<void> {
  await writeFileAtomic(join(userDataDir, WINDOW_STATE_FILE), JSON.stringify(state));
}
