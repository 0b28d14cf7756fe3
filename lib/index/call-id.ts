// How the index stores a call's model_call_id. NeMo Gym mints it as `uuid4().hex` (spec §3: 32 lowercase hex
// characters): such an id is stored as its 16 bytes (a BLOB), not 33 bytes of text, in a call row of about 200
// bytes; any other string is stored as it is (TEXT), so every id reads back exactly as it was written.

const CANONICAL = /^[0-9a-f]{32}$/;

/** The value stored for an id: its bytes for a `uuid4().hex`, else the string (or null) itself. */
export function storedCallId(id: unknown): unknown {
  return typeof id === 'string' && id.length === 32 && CANONICAL.test(id) ? Buffer.from(id, 'hex') : id;
}

/**
 * SQL reading a stored id back as the string it was (`column`: the column, qualified as the query needs). Cheaper
 * than decoding in JavaScript, where better-sqlite3 copies each BLOB into a new Buffer first: listing a large
 * rollout this way is about as fast as with text ids, and decoding Buffers is markedly slower.
 */
export function callIdSql(column: string): string {
  return `CASE WHEN typeof(${column}) = 'blob' THEN lower(hex(${column})) ELSE ${column} END`;
}
