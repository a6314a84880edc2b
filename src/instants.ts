/**
 * The instants a caller may give: RFC 3339 date-times (ajv-formats' `date-time`) that Postgres `timestamptz` and
 * JavaScript's Date both hold, so a date the schema admits is never one the database refuses with a 500.
 */

// RFC 3339 admits offsets up to ±23:59; Postgres refuses any beyond ±15:59 ("time zone displacement out of range").
const MAX_OFFSET_MINUTES = 15 * 60 + 59;
const WRITTEN = /^(\d{4})-\d\d-\d\d[Tt ][\d:.]+(?:[Zz]|([+-])(\d\d):?(\d\d))$/;

/** What keeps an RFC 3339 date-time from being stored, or undefined when Postgres and Date both hold it. */
export function instantProblem(text: string): string | undefined {
  const written = WRITTEN.exec(text);
  if (!written) return 'must be an RFC 3339 date-time with an offset, e.g. 2026-12-20T10:00:00Z';
  // Postgres has no year 0 (1 BC comes before AD 1) and refuses "0000" as written.
  if (Number(written[1]) < 1) return 'must be in years 0001-9999';
  if (written[2] && Number(written[3]) * 60 + Number(written[4]) > MAX_OFFSET_MINUTES) return 'must have an offset within ±15:59';
  const date = new Date(text);
  // The format admits a leap second (23:59:60), which Date cannot hold.
  if (Number.isNaN(date.getTime())) return 'must be a date-time Date can hold (no leap second)';
  // The instant itself too: 0001-01-01T00:00:00+01:00 is in year 0 once in UTC, 9999-12-31T23:00:00-02:00 in 10000.
  if (date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) return 'must be in years 0001-9999 (in UTC)';
  return undefined;
}
