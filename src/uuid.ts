/** The one UUID pattern (any version, any case): path parameters, subjects and ids are checked with it. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
