import { createHash } from 'node:crypto';

function format(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** RFC 9562 UUIDv7: time-ordered, so ids sort by creation. */
export { v7 as uuidv7 } from 'uuid';

/**
 * RFC 9562 UUIDv8 derived from names: the first 16 bytes of the SHA-256 of the parts' UTF-8 joined by one 0x00 byte,
 * with the version nibble set to 8 and the variant bits to 10. The same inputs always give the same id (cascade,
 * shadow and schedule-fire job ids); docs/schedules.md gives clients the recipe, so changing it breaks them.
 */
export function deterministicUuid(...parts: string[]): string {
  const bytes = createHash('sha256').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return format(Buffer.from(bytes));
}
