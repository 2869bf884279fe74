/**
 * Draws the app and tray icons as PNG files (no image tool needed):
 *   node --import tsx build/generate-icons.ts
 * Writes build/icon.png (512 px, electron-builder derives the platform formats from it),
 * build/tray/tray.png, build/tray/tray-unread.png (32 px, with a red dot) and
 * build/tray/tray-warning.png (with an amber triangle), and for the macOS menu bar the same
 * three as template images (black and alpha only, so macOS draws them in the bar's own colour,
 * light or dark): build/tray/macos/<name>Template.png at 16 px and <name>Template@2x.png at 32 px.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';

type Rgba = [number, number, number, number];

function png(width: number, height: number, pixel: (x: number, y: number) => Rgba): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0;
    for (let x = 0; x < width; x++) {
      const [r, g, b, a] = pixel(x + 0.5, y + 0.5);
      raw.set([r, g, b, a], y * (width * 4 + 1) + 1 + x * 4);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

const clamp = (v: number) => Math.max(0, Math.min(1, v));
function over(dst: Rgba, src: Rgba, coverage: number): Rgba {
  const a = (src[3] / 255) * clamp(coverage);
  const outA = a + (dst[3] / 255) * (1 - a);
  if (outA === 0) return [0, 0, 0, 0];
  const mix = (i: 0 | 1 | 2) => Math.round((src[i] * a + dst[i] * (dst[3] / 255) * (1 - a)) / outA);
  return [mix(0), mix(1), mix(2), Math.round(outA * 255)];
}
/** Distance from p to the segment a-b. */
function segDist(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const t = clamp(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}
function roundedBox(x: number, y: number, size: number, radius: number): number {
  const h = size / 2;
  const qx = Math.abs(x - h) - (h - radius);
  const qy = Math.abs(y - h) - (h - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

/** A pulse line (monitoring) on a rounded square. */
function icon(size: number, options: { background: boolean; dot: boolean; warning?: boolean; template?: boolean }): Buffer {
  const ink = (rgba: Rgba): Rgba => (options.template ? [0, 0, 0, 255] : rgba);
  const s = size / 32;
  const pulse: Array<[number, number]> = [
    [4, 17], [10, 17], [13, 9], [17, 24], [20, 14], [22, 17], [28, 17],
  ].map(([x, y]) => [x! * s, y! * s]);
  const stroke = (options.background ? 2.4 : 3) * s;
  return png(size, size, (x, y) => {
    let c: Rgba = [0, 0, 0, 0];
    if (options.background) {
      const d = roundedBox(x, y, size, 6 * s);
      c = over(c, [30, 41, 59, 255], 0.5 - d);
    }
    let d = Infinity;
    for (let i = 0; i + 1 < pulse.length; i++) d = Math.min(d, segDist(x, y, ...pulse[i]!, ...pulse[i + 1]!));
    c = over(c, ink(options.background ? [56, 189, 248, 255] : [226, 232, 240, 255]), stroke / 2 - d + 0.5);
    if (options.dot) {
      const dd = Math.hypot(x - 25 * s, y - 7 * s) - 6 * s;
      c = over(c, ink([239, 68, 68, 255]), 0.5 - dd);
    }
    if (options.warning) {
      // An amber triangle with a dark bar (a bar cut out of a template): some environment is not watched.
      const inside = Math.min(y - 1 * s, 13 * s - y, (y - 1 * s) * 0.58 - Math.abs(x - 25 * s));
      c = over(c, ink([245, 158, 11, 255]), inside + 0.5);
      if (Math.abs(x - 25 * s) < 0.9 * s && y > 5 * s && y < 10 * s) c = options.template ? [0, 0, 0, 0] : over(c, [30, 41, 59, 255], 1);
    }
    return c;
  });
}

const here = dirname(fileURLToPath(import.meta.url));
writeFileSync(join(here, 'icon.png'), icon(512, { background: true, dot: false }));
writeFileSync(join(here, 'tray', 'tray.png'), icon(32, { background: false, dot: false }));
writeFileSync(join(here, 'tray', 'tray-unread.png'), icon(32, { background: false, dot: true }));
writeFileSync(join(here, 'tray', 'tray-warning.png'), icon(32, { background: false, dot: false, warning: true }));
mkdirSync(join(here, 'tray', 'macos'), { recursive: true });
for (const [name, options] of [['tray', {}], ['tray-unread', { dot: true }], ['tray-warning', { warning: true }]] as const) {
  writeFileSync(join(here, 'tray', 'macos', `${name}Template.png`), icon(16, { background: false, dot: false, ...options, template: true }));
  writeFileSync(join(here, 'tray', 'macos', `${name}Template@2x.png`), icon(32, { background: false, dot: false, ...options, template: true }));
}
console.log('wrote build/icon.png, build/tray/tray{,-unread,-warning}.png and build/tray/macos/tray{,-unread,-warning}Template{,@2x}.png');
