/**
 * The canonical IANA name of a time zone (`europe/berlin` → `Europe/Berlin`,
 * `US/Pacific` → `America/Los_Angeles`), or undefined when the runtime's
 * time zone database does not know it. Offsets such as `+05:00` are not zones.
 */
export function canonicalTimeZone(zone: string): string | undefined {
  if (zone.length === 0 || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
