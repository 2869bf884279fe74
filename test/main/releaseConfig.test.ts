import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configArguments, platformsOf, SIGNING_VARIABLES, signingPlan } from '../../scripts/dist-signing.js';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml') as { load(text: string): unknown };
const Ajv = require('ajv') as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } };

async function builderConfig(): Promise<Record<string, Record<string, unknown>>> {
  return yaml.load(await readFile('build/electron-builder.yml', 'utf8')) as Record<string, Record<string, unknown>>;
}
async function validAgainstSchema(config: unknown): Promise<unknown> {
  const schema = JSON.parse(await readFile(require.resolve('app-builder-lib/scheme.json'), 'utf8'));
  const validate = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true }).compile(schema);
  validate(config);
  return validate.errors ?? null;
}

describe('shipping configuration (build/electron-builder.yml)', () => {
  it('hardens the binary with fuses, publishes a generic update feed, ships a zip beside the dmg with entitlements', async () => {
    const config = await builderConfig();
    expect(config['electronFuses']).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config['publish']).toEqual([{ provider: 'generic', url: expect.stringMatching(/^https:\/\//) }]);
    expect(config['mac']).toMatchObject({ target: ['dmg', 'zip'], hardenedRuntime: true, entitlements: 'build/entitlements.mac.plist' });
    // The AppImage's file name has no space (Exec of its link handler, URLs of the feed).
    expect(config['appImage']?.['artifactName']).toBe('svc-monitor-${version}-${arch}.${ext}');
    const plist = await readFile('build/entitlements.mac.plist', 'utf8');
    expect(plist).toMatch(/<key>com\.apple\.security\.cs\.allow-jit<\/key>\s*<true\/>/);
  });

  it('keeps electron-builder’s default deb dependencies, which include libsecret for the keychain', async () => {
    const config = await builderConfig();
    // A depends list in the config replaces the defaults (electron-builder has no "default" entry).
    expect(config['deb']?.['depends']).toBeUndefined();
    const FpmTarget = (require('app-builder-lib/out/targets/FpmTarget') as { default: { prototype: { getDefaultDepends(target: string): string[] } } }).default;
    const defaults = FpmTarget.prototype.getDefaultDepends.call(null, 'deb');
    expect(defaults).toEqual(expect.arrayContaining(['libgtk-3-0', 'libnotify4', 'libnss3', 'libxss1', 'libxtst6', 'xdg-utils', 'libatspi2.0-0', 'libuuid1', 'libsecret-1-0']));
  });
});

describe('release signing from the environment (scripts/dist)', () => {
  it('skips each platform with a line naming the variables to set', () => {
    const plan = signingPlan(['windows', 'macos', 'linux'], {});
    expect(plan.lines).toEqual([
      expect.stringMatching(/^Windows: NOT signed: set AZURE_TENANT_ID, .*AZURE_TRUSTED_SIGNING_PUBLISHER_NAME \(Azure Trusted Signing\) or WIN_CSC_LINK/),
      expect.stringMatching(/^macOS: NOT signed and NOT notarized: set CSC_LINK and CSC_KEY_PASSWORD/),
      expect.stringMatching(/^Linux: AppImage and deb are not signed/),
    ]);
    expect(configArguments(plan.config)).toEqual(['-c.mac.identity=null', '-c.mac.notarize=false']);
  });

  it('signs Windows with Azure Trusted Signing and macOS with a Developer ID and notarization, in a configuration electron-builder accepts', async () => {
    const env = {
      AZURE_TENANT_ID: 't',
      AZURE_CLIENT_ID: 'c',
      AZURE_CLIENT_SECRET: 's',
      AZURE_TRUSTED_SIGNING_ENDPOINT: 'https://weu.codesigning.azure.net/',
      AZURE_TRUSTED_SIGNING_ACCOUNT: 'svc-monitor',
      AZURE_TRUSTED_SIGNING_PROFILE: 'public-trust',
      AZURE_TRUSTED_SIGNING_PUBLISHER_NAME: 'Svc Monitor contributors',
      CSC_LINK: 'base64…',
      APPLE_API_KEY: '/keys/AuthKey.p8',
      APPLE_API_KEY_ID: 'K',
      APPLE_API_ISSUER: 'I',
    };
    const plan = signingPlan(['windows', 'macos'], env);
    expect(plan.lines).toEqual([
      'Windows: signing with Azure Trusted Signing (account svc-monitor, profile public-trust)',
      'macOS: signing with the Developer ID in CSC_LINK (hardened runtime, build/entitlements.mac.plist)',
      'macOS: notarizing with an App Store Connect API key',
    ]);
    const config = await builderConfig();
    const merged = { ...config, win: { ...config['win'], ...plan.config.win }, mac: { ...config['mac'], ...plan.config.mac } };
    expect(await validAgainstSchema(merged)).toBeNull();
    expect(configArguments(plan.config)).toContain('-c.win.azureSignOptions.publisherName=Svc Monitor contributors');
    // A certificate instead of Azure; a signed but not notarized macOS build says so.
    expect(signingPlan(['windows'], { WIN_CSC_LINK: 'x' }).lines).toEqual(['Windows: signing with the certificate in WIN_CSC_LINK']);
    expect(signingPlan(['macos'], { CSC_NAME: 'Developer ID Application: X' }).lines[1]).toMatch(/^macOS: NOT notarized: set APPLE_API_KEY \+ APPLE_API_KEY_ID/);
  });

  it('refuses a half-configured signing instead of shipping unsigned', () => {
    expect(() => signingPlan(['windows'], { AZURE_TENANT_ID: 't', AZURE_CLIENT_ID: 'c' })).toThrow(/Azure Trusted Signing is partly configured; missing AZURE_CLIENT_SECRET, AZURE_TRUSTED_SIGNING_ENDPOINT/);
    expect(() => signingPlan(['macos'], { CSC_LINK: 'x', APPLE_ID: 'a@b' })).toThrow(/notarization with an Apple ID is partly configured; missing APPLE_APP_SPECIFIC_PASSWORD, APPLE_TEAM_ID/);
    // The key's text where its file's path belongs: refused before the build.
    const keyText = '-----BEGIN PRIVATE KEY-----\nMIGTAgEA\n-----END PRIVATE KEY-----';
    expect(() => signingPlan(['macos'], { CSC_LINK: 'x', APPLE_API_KEY: keyText, APPLE_API_KEY_ID: 'K', APPLE_API_ISSUER: 'I' })).toThrow(/APPLE_API_KEY must be the path of the App Store Connect API key file/);
    // Empty values (a secret the repository does not have) count as absent.
    expect(signingPlan(['windows'], { AZURE_TENANT_ID: '', WIN_CSC_LINK: '' }).lines[0]).toMatch(/^Windows: NOT signed/);
  });

  it('builds for the platforms named on the command line, else for the host', () => {
    expect(platformsOf(['--mac', '--win', '--publish', 'never'], 'linux')).toEqual(['macos', 'windows']);
    expect(platformsOf([], 'darwin')).toEqual(['macos']);
    expect(platformsOf(['--dir'], 'win32')).toEqual(['windows']);
  });
});

const step = z.union([
  z.object({ name: z.string().optional(), uses: z.string().regex(/^[\w.-]+\/[\w.-]+@v\d+$/), with: z.record(z.string(), z.unknown()).optional(), if: z.string().optional() }).strict(),
  z.object({ name: z.string(), run: z.string().min(1), env: z.record(z.string(), z.string()).optional(), if: z.string().optional() }).strict(),
]);
const workflow = z.object({
  name: z.string(),
  on: z.object({ push: z.object({ tags: z.array(z.string()) }), workflow_dispatch: z.null() }),
  permissions: z.record(z.string(), z.string()),
  jobs: z.record(
    z.string(),
    z.object({
      strategy: z.object({ 'fail-fast': z.boolean(), matrix: z.object({ include: z.array(z.object({ os: z.string(), platform: z.string() }).strict()) }) }),
      'runs-on': z.string(),
      'timeout-minutes': z.number(),
      steps: z.array(step).min(1),
    }),
  ),
});

describe('the release workflow (.github/workflows/release.yml)', () => {
  it('is valid YAML of the expected shape: each installer built on its own OS by npm run dist, with the signing variables scripts/dist reads', async () => {
    const parsed = workflow.parse(yaml.load(await readFile('.github/workflows/release.yml', 'utf8')));
    const job = parsed.jobs['installers']!;
    expect(job['runs-on']).toBe('${{ matrix.os }}');
    expect(job.strategy.matrix.include).toEqual([
      { os: expect.stringMatching(/^ubuntu-/), platform: '--linux' },
      // Both Mac architectures: macos-latest is Apple silicon only.
      { os: expect.stringMatching(/^macos-/), platform: '--mac --x64 --arm64' },
      { os: expect.stringMatching(/^windows-/), platform: '--win' },
    ]);
    const build = job.steps.find((s) => 'run' in s && s.run.startsWith('npm run dist')) as { run: string; env: Record<string, string> } | undefined;
    expect(build?.run).toBe('npm run dist -- ${{ matrix.platform }} --publish never');
    const passed = Object.keys(build!.env);
    expect(passed.filter((v) => !SIGNING_VARIABLES.includes(v))).toEqual([]);
    expect(passed).toEqual(expect.arrayContaining(['CSC_LINK', 'APPLE_API_KEY_ID', 'AZURE_CLIENT_SECRET', 'AZURE_TRUSTED_SIGNING_ENDPOINT', 'WIN_CSC_LINK']));
    // Notarization reads APPLE_API_KEY as a file path: the secret (the key's text) is written to a
    // file by an earlier step, which exports the path; the build step never gets the text.
    expect(passed).not.toContain('APPLE_API_KEY');
    const keyFile = job.steps.find((s) => 'run' in s && s.run.includes('AuthKey.p8')) as { run: string; env: Record<string, string>; if: string } | undefined;
    expect(keyFile).toMatchObject({ if: "runner.os == 'macOS'", env: { APPLE_API_KEY_CONTENT: '${{ secrets.APPLE_API_KEY }}' } });
    expect(keyFile!.run).toContain('echo "APPLE_API_KEY=$RUNNER_TEMP/AuthKey.p8" >> "$GITHUB_ENV"');
    expect(job.steps.indexOf(keyFile as never)).toBeLessThan(job.steps.indexOf(build as never));
    const upload = job.steps.find((s) => 'uses' in s && s.uses.startsWith('actions/upload-artifact@')) as { with: { path: string } } | undefined;
    expect(upload?.with.path).toMatch(/release\/latest\*\.yml/);
    expect(upload?.with.path).toMatch(/release\/\*\.zip/);
  });
});
