import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

/** 'local' (the browser's zone), 'UTC', or an IANA zone name chosen by the viewer. */
export type TimeZoneChoice = 'local' | string;
const KEY = 'svc-monitoring.timeZone';

export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function isValidZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function readChoice(): TimeZoneChoice {
  try {
    const v = window.localStorage.getItem(KEY);
    return v && (v === 'local' || isValidZone(v)) ? v : 'local';
  } catch {
    return 'local';
  }
}

/** Zones offered in the picker besides Local and UTC (any IANA name can be typed). */
export function knownZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

/**
 * The viewer's time zone: every time on the pages is shown in it and named, and the overview and
 * statistics ask the service for that zone's calendar (Today = since local midnight).
 * Remembered in localStorage.
 */
export const useTimeZoneStore = defineStore('timeZone', () => {
  const choice = ref<TimeZoneChoice>(readChoice());
  /** The IANA zone in effect. */
  const zone = computed(() => (choice.value === 'local' ? browserZone() : choice.value));
  /** How pages name it: "America/Los_Angeles (local)", "UTC". */
  const label = computed(() => (choice.value === 'local' ? `${zone.value} (local)` : zone.value));

  function set(next: TimeZoneChoice): boolean {
    if (next !== 'local' && !isValidZone(next)) return false;
    choice.value = next;
    try {
      if (next === 'local') window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, next);
    } catch {
      /* storage unavailable: keep it for this page only */
    }
    return true;
  }
  return { choice, zone, label, set };
});
