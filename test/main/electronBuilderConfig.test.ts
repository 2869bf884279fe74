import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('build/electron-builder.yml', () => {
  it('is valid against electron-builder’s own configuration schema and packages the built bundles, icons and protocol', async () => {
    const yaml = require('js-yaml') as { load(text: string): unknown };
    const Ajv = require('ajv') as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } };
    const config = yaml.load(await readFile('build/electron-builder.yml', 'utf8')) as Record<string, unknown>;
    const schema = JSON.parse(await readFile(require.resolve('app-builder-lib/scheme.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
    const ok = validate(config);
    expect(validate.errors ?? null, JSON.stringify(validate.errors)).toBeNull();
    expect(ok).toBe(true);
    expect(config['files']).toEqual(expect.arrayContaining(['out/**', 'build/tray/**']));
    expect(config['protocols']).toEqual([{ name: 'Svc Monitor task link', schemes: ['svc-monitor'] }]);
    for (const icon of ['build/icon.png', 'build/tray/tray.png', 'build/tray/tray-unread.png']) {
      const bytes = await readFile(icon);
      expect(bytes.subarray(1, 4).toString('ascii'), icon).toBe('PNG');
      expect((await stat(icon)).size).toBeGreaterThan(100);
    }
    // electron-builder wants at least 256×256 for the app icon.
    const png = await readFile('build/icon.png');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
  });
});
