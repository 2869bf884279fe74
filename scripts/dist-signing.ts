/**
 * What a release build signs, from the standard environment variables of electron-builder,
 * Azure and Apple. Each platform says in one line what it does or why it skips; a half-set
 * group of variables is an error (a release that meant to sign must not ship unsigned).
 * `config` is what the run adds to build/electron-builder.yml.
 */
export type ReleasePlatform = 'windows' | 'macos' | 'linux';

export interface SigningPlan {
  lines: string[];
  config: { win?: Record<string, unknown>; mac?: Record<string, unknown> };
}

type Env = Readonly<Record<string, string | undefined>>;

const AZURE_IDENTITY = ['AZURE_TENANT_ID', 'AZURE_CLIENT_ID', 'AZURE_CLIENT_SECRET'] as const;
const AZURE_ACCOUNT = {
  endpoint: 'AZURE_TRUSTED_SIGNING_ENDPOINT',
  codeSigningAccountName: 'AZURE_TRUSTED_SIGNING_ACCOUNT',
  certificateProfileName: 'AZURE_TRUSTED_SIGNING_PROFILE',
  publisherName: 'AZURE_TRUSTED_SIGNING_PUBLISHER_NAME',
} as const;
/** The three ways @electron/notarize authenticates, as electron-builder reads them. */
const NOTARY_CREDENTIALS: ReadonlyArray<{ name: string; variables: readonly string[] }> = [
  { name: 'an App Store Connect API key', variables: ['APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'] },
  { name: 'an Apple ID', variables: ['APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'] },
  { name: 'a notarytool keychain profile', variables: ['APPLE_KEYCHAIN_PROFILE'] },
];

/** Every variable the plan reads (the release workflow passes these and no others). */
export const SIGNING_VARIABLES: readonly string[] = [
  ...AZURE_IDENTITY,
  ...Object.values(AZURE_ACCOUNT),
  'WIN_CSC_LINK',
  'WIN_CSC_KEY_PASSWORD',
  'CSC_LINK',
  'CSC_KEY_PASSWORD',
  'CSC_NAME',
  ...NOTARY_CREDENTIALS.flatMap((c) => c.variables),
  'APPLE_KEYCHAIN',
];

const set = (env: Env, name: string) => (env[name] ?? '').trim() !== '';

/** The variables of a group that are missing, or undefined when none of them is set. */
function missingOfStartedGroup(env: Env, names: readonly string[]): string[] | undefined {
  const missing = names.filter((n) => !set(env, n));
  return missing.length === names.length ? undefined : missing;
}

function windows(env: Env, plan: SigningPlan): void {
  const azureNames = [...AZURE_IDENTITY, ...Object.values(AZURE_ACCOUNT)];
  const azureMissing = missingOfStartedGroup(env, azureNames);
  if (azureMissing && azureMissing.length > 0) throw new Error(`Windows signing: Azure Trusted Signing is partly configured; missing ${azureMissing.join(', ')}`);
  if (azureMissing) {
    plan.config.win = { azureSignOptions: Object.fromEntries(Object.entries(AZURE_ACCOUNT).map(([key, variable]) => [key, env[variable]!.trim()])) };
    plan.lines.push(`Windows: signing with Azure Trusted Signing (account ${env['AZURE_TRUSTED_SIGNING_ACCOUNT']}, profile ${env['AZURE_TRUSTED_SIGNING_PROFILE']})`);
    return;
  }
  const certificate = ['WIN_CSC_LINK', 'CSC_LINK'].find((n) => set(env, n));
  if (certificate) {
    plan.lines.push(`Windows: signing with the certificate in ${certificate}`);
    return;
  }
  plan.lines.push(
    `Windows: NOT signed: set ${azureNames.join(', ')} (Azure Trusted Signing) or WIN_CSC_LINK and WIN_CSC_KEY_PASSWORD (a code-signing certificate); unsigned installers get a SmartScreen warning`,
  );
}

function macos(env: Env, plan: SigningPlan): void {
  const identity = ['CSC_LINK', 'CSC_NAME'].find((n) => set(env, n));
  const started = NOTARY_CREDENTIALS.map((c) => ({ ...c, missing: missingOfStartedGroup(env, c.variables) }));
  const partial = started.find((c) => c.missing && c.missing.length > 0);
  if (partial) throw new Error(`macOS notarization with ${partial.name} is partly configured; missing ${partial.missing!.join(', ')}`);
  if (!identity) {
    plan.config.mac = { identity: null, notarize: false };
    plan.lines.push('macOS: NOT signed and NOT notarized: set CSC_LINK and CSC_KEY_PASSWORD (a Developer ID Application certificate) or CSC_NAME (one in the keychain); Gatekeeper blocks unsigned apps and the updater needs a signed app');
    return;
  }
  const notary = started.find((c) => c.missing !== undefined);
  // @electron/notarize reads APPLE_API_KEY as the path of the .p8 file. A secret store holds the
  // key's text: the release workflow writes it to a file first (a key's text here is an error,
  // caught before the build rather than by notarytool after it).
  if (notary?.variables.includes('APPLE_API_KEY') && /-----BEGIN|\n/.test(env['APPLE_API_KEY'] ?? '')) {
    throw new Error('APPLE_API_KEY must be the path of the App Store Connect API key file (AuthKey_XXXX.p8), not its contents: write the key to a file and pass its path');
  }
  plan.config.mac = { notarize: notary !== undefined };
  plan.lines.push(`macOS: signing with the Developer ID in ${identity} (hardened runtime, build/entitlements.mac.plist)`);
  plan.lines.push(
    notary
      ? `macOS: notarizing with ${notary.name}`
      : `macOS: NOT notarized: set ${NOTARY_CREDENTIALS.map((c) => c.variables.join(' + ')).join(', or ')}; Gatekeeper warns about apps that are not notarized`,
  );
}

export function signingPlan(platforms: readonly ReleasePlatform[], env: Env): SigningPlan {
  const plan: SigningPlan = { lines: [], config: {} };
  for (const platform of platforms) {
    if (platform === 'windows') windows(env, plan);
    else if (platform === 'macos') macos(env, plan);
    else plan.lines.push('Linux: AppImage and deb are not signed; updates are verified against the sha512 in latest-linux.yml');
  }
  return plan;
}

/** The platforms an electron-builder command line builds for (the host's when it names none). */
export function platformsOf(args: readonly string[], host: NodeJS.Platform): ReleasePlatform[] {
  const named: ReleasePlatform[] = [];
  for (const a of args) {
    if (a === '--win' || a === '-w' || a === '--windows') named.push('windows');
    if (a === '--mac' || a === '-m' || a === '--macos') named.push('macos');
    if (a === '--linux' || a === '-l') named.push('linux');
  }
  if (named.length > 0) return [...new Set(named)];
  return [host === 'win32' ? 'windows' : host === 'darwin' ? 'macos' : 'linux'];
}

/** The plan's configuration as electron-builder command-line overrides (-c.a.b=value). */
export function configArguments(config: SigningPlan['config']): string[] {
  const out: string[] = [];
  const walk = (prefix: string, value: unknown) => {
    if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(`${prefix}.${k}`, v);
    else out.push(`-c${prefix}=${value === null ? 'null' : String(value)}`);
  };
  walk('', config);
  return out;
}
