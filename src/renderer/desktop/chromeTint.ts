/** Text and soft variants of an environment colour for the tinted window chrome. */
export function chromeColours(hex: string): { base: string; text: string; soft: string } {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  const n = m ? parseInt(m[1]!, 16) : 0x2563eb;
  const r = (n >> 16) & 255;
  const g = (n >> 8) & 255;
  const b = n & 255;
  // WCAG relative luminance decides black or white text on the tint.
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return { base: `#${n.toString(16).padStart(6, '0')}`, text: luminance > 0.4 ? '#111111' : '#ffffff', soft: `rgba(${r}, ${g}, ${b}, 0.14)` };
}
