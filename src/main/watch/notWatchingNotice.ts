/** One production environment whose watching stopped, as the notice names it. */
export interface StoppedWatching {
  environmentId: string;
  name: string;
  reason: string;
}

/** What one "not watching" notice says. */
export interface NotWatchingNotice {
  title: string;
  body: string;
  /** The environment a click opens (the first one when several are named). */
  environmentId: string;
}

/** Names listed in a notice at most; the rest are counted. */
const NAMES_SHOWN = 4;

function capitalised(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}

/**
 * The notice for the production environments whose watching stopped within one gathering window.
 * One environment: its name and why. Several: one notice naming them. Every environment of the
 * console down at once with its live connection (a Wi-Fi drop, a VPN that went away): the machine
 * is probably offline, and one notice says that instead of one per environment.
 */
export function notWatchingNotice(stopped: readonly StoppedWatching[], environmentCount: number, machineOffline: boolean): NotWatchingNotice {
  const first = stopped[0]!;
  if (machineOffline) {
    return {
      title: `⚠ Offline? Not watching any of the ${environmentCount} environments`,
      body: 'Every environment\'s live connection is down at once: this computer may be offline. Failures are not reported until it reconnects.',
      environmentId: first.environmentId,
    };
  }
  if (stopped.length === 1) {
    return { title: `⚠ PRODUCTION · Not watching ${first.name}`, body: `${capitalised(first.reason)}. Failures there are not reported until this is fixed.`.slice(0, 240), environmentId: first.environmentId };
  }
  const names = stopped.slice(0, NAMES_SHOWN).map((s) => s.name);
  const more = stopped.length - names.length;
  const reasons = [...new Set(stopped.map((s) => s.reason.replace(/:.*$/, '')))];
  return {
    title: `⚠ PRODUCTION · Not watching ${stopped.length} environments`,
    body: `${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}: ${reasons.join('; ')}. Failures there are not reported until this is fixed.`.slice(0, 240),
    environmentId: first.environmentId,
  };
}
