import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { trayIconPaths } from '../../src/main/tray/trayIcons.js';

/**
 * The real icon files, decoded in full (pngjs inflates the image data, checks every chunk's
 * CRC and undoes the row filters) as Electron's nativeImage would have to: a file that is
 * truncated, mis-encoded or empty fails here, not on a user's desk.
 */
const decode = async (path: string) => PNG.sync.read(await readFile(path));

/** Opaque and transparent pixel counts, and whether every visible pixel is black. */
function coverage(png: PNG): { opaque: number; clear: number; blackOnly: boolean } {
  let opaque = 0;
  let clear = 0;
  let blackOnly = true;
  for (let i = 0; i < png.data.length; i += 4) {
    const a = png.data[i + 3]!;
    if (a >= 200) opaque++;
    if (a === 0) clear++;
    if (a > 0 && (png.data[i]! | png.data[i + 1]! | png.data[i + 2]!) !== 0) blackOnly = false;
  }
  return { opaque, clear, blackOnly };
}

const build = (relative: string) => join('build', relative);

describe('the icon files', () => {
  it('decode: the 512 px app icon, and the coloured 32 px tray icons with a shape on a clear background', async () => {
    const app = await decode('build/icon.png');
    expect([app.width, app.height]).toEqual([512, 512]);
    expect(coverage(app).opaque).toBeGreaterThan(512 * 512 * 0.5);
    for (const path of Object.values(trayIconPaths('linux', build))) {
      const tray = await decode(path);
      expect([tray.width, tray.height], path).toEqual([32, 32]);
      const c = coverage(tray);
      expect(c.opaque, path).toBeGreaterThan(20);
      expect(c.clear, path).toBeGreaterThan(32 * 32 * 0.5);
      expect(c.blackOnly, `${path} is coloured`).toBe(false);
    }
    expect(trayIconPaths('win32', build)).toEqual(trayIconPaths('linux', build));
  });

  it('give macOS template images: names ending in Template, black and alpha only, a 16 px and a 32 px @2x twin, each state a different shape', async () => {
    const paths = trayIconPaths('darwin', build);
    const shapes = new Set<string>();
    for (const path of Object.values(paths)) {
      expect(path).toMatch(/Template\.png$/);
      const twin = path.replace(/\.png$/, '@2x.png');
      expect(existsSync(twin), twin).toBe(true);
      for (const [file, size] of [[path, 16], [twin, 32]] as const) {
        const png = await decode(file);
        expect([png.width, png.height], file).toEqual([size, size]);
        const c = coverage(png);
        expect(c.blackOnly, `${file} has colour: macOS would not tint it`).toBe(true);
        expect(c.opaque, file).toBeGreaterThan(size);
        expect(c.clear, file).toBeGreaterThan((size * size) / 2);
      }
      shapes.add((await decode(twin)).data.toString('base64'));
    }
    expect(shapes.size).toBe(3);
  });
});
