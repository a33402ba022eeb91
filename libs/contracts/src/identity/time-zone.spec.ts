import { canonicalTimeZone } from './time-zone';

describe('canonicalTimeZone', () => {
  it.each([
    ['Europe/Berlin', 'Europe/Berlin'],
    ['europe/berlin', 'Europe/Berlin'],
    ['America/Los_Angeles', 'America/Los_Angeles'],
    ['UTC', 'UTC'],
    ['Etc/GMT+5', 'Etc/GMT+5'],
  ])('knows %s as %s', (zone, canonical) => {
    expect(canonicalTimeZone(zone)).toBe(canonical);
  });

  it.each(['Mars/Olympus', '+05:00', 'UTC+5', '', ' Europe/Berlin', 'Europe/Berlin\u0000', 'x'.repeat(65), '../etc/passwd'])(
    'refuses %j',
    (zone) => {
      expect(canonicalTimeZone(zone)).toBeUndefined();
    },
  );
});
