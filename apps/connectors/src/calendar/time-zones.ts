import { findIana, IANA_ALIAS_MAP } from 'windows-iana';

/**
 * The IANA zone a feed's TZID means, when the feed does not define it with a
 * VTIMEZONE of its own. Real exports name zones in several ways:
 *
 * - IANA names (`Europe/Berlin`), also with a vendor prefix
 *   (`/mozilla.org/20050126_1/Europe/Berlin`, `/Europe/Berlin`);
 * - Windows zone ids (`W. Europe Standard Time`), read through the CLDR
 *   Windows→IANA mapping that `windows-iana` maintains;
 * - Windows display names (`(UTC-05:00) Eastern Time (US & Canada)`, the
 *   older `(GMT +01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`):
 *   `… Time` names are the zone id with `Standard` (`Eastern Standard Time`),
 *   city lists name the zone by a city IANA also names (`Europe/Amsterdam`),
 *   and when neither matches, the fixed offset in the parentheses
 *   (`Etc/GMT+5`), which is right outside daylight saving time at least.
 *
 * Returns null when nothing matches. Deterministic; the cache only saves work.
 */
export function ianaZoneFor(tzid: string): string | null {
  const cached = cache.get(tzid);
  if (cached !== undefined) return cached;
  const zone = resolve(tzid);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(tzid, zone);
  return zone;
}

/** The canonical IANA name, or null when `name` is not a zone this runtime knows. */
export function canonicalIana(name: string): string | null {
  if (name === '' || name.length > 100) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const cache = new Map<string, string | null>();
const MAX_CACHED = 1_000;
const DISPLAY_NAME = /^\(\s*(?:UTC|GMT)\s*(?:([+-])\s*(\d{1,2})(?::?(\d{2}))?)?\s*\)\s*(.*)$/i;

let citiesByName: Map<string, string> | undefined;
/** `amsterdam` → `Europe/Amsterdam`, `kolkata` → `Asia/Kolkata`: from the runtime's zone list and CLDR's aliases. */
function cities(): Map<string, string> {
  if (!citiesByName) {
    citiesByName = new Map();
    const aliases = IANA_ALIAS_MAP.flatMap((entry) => entry.alias);
    for (const zone of [...Intl.supportedValuesOf('timeZone'), ...aliases]) {
      const city = zone.split('/').pop()?.replace(/_/g, ' ').toLowerCase();
      if (city && !citiesByName.has(city)) citiesByName.set(city, zone);
    }
  }
  return citiesByName;
}

function resolve(raw: string): string | null {
  const tzid = raw
    .trim()
    .replace(/^["']+|["']+$/g, '')
    .trim();
  if (tzid === '') return null;

  const direct = canonicalIana(tzid);
  if (direct !== null) return direct;
  // A vendor prefix before an IANA name: try the last three, then two segments.
  const segments = tzid.split('/').filter((s) => s !== '');
  for (const n of [3, 2]) {
    if (segments.length > n) {
      const tail = canonicalIana(segments.slice(-n).join('/'));
      if (tail !== null) return tail;
    }
  }

  const windows = windowsZone(tzid);
  if (windows !== null) return windows;

  const display = DISPLAY_NAME.exec(tzid);
  if (!display) return null;
  const [, sign, hours, minutes, rest = ''] = display;
  const words = rest
    .replace(/\([^)]*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  // `Eastern Time (US & Canada)` → `Eastern Standard Time`; `Coordinated Universal Time` and the like as they are.
  for (const candidate of [words.replace(/ Time$/i, ' Standard Time'), words, `${words} Standard Time`]) {
    const zone = windowsZone(candidate);
    if (zone !== null) return zone;
  }
  for (const city of rest.split(/,|\/|\band\b|&/)) {
    const zone = cities().get(
      city
        .replace(/\([^)]*\)/g, '')
        .trim()
        .toLowerCase(),
    );
    if (zone !== undefined) return zone;
  }
  if (sign === undefined || hours === undefined) return rest === '' || /\b(UTC|GMT|Universal)\b/i.test(rest) ? 'UTC' : null;
  if (minutes !== undefined && minutes !== '00') return null;
  const h = Number(hours);
  if (h === 0) return 'UTC';
  // Etc/GMT zones have the POSIX sign: UTC-05:00 is Etc/GMT+5.
  return canonicalIana(`Etc/GMT${sign === '-' ? '+' : '-'}${h}`);
}

function windowsZone(name: string): string | null {
  if (name === '') return null;
  const [first] = findIana(name);
  return first === undefined ? null : canonicalIana(first);
}
