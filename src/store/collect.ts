/** Groups rows under their keys, every key present (an empty list when no row has it): the shape of groupsOf and membersOf. */
export function collect<K, R, V>(keys: K[], rows: R[], keyOf: (row: R) => K, valueOf: (row: R) => V): Map<K, V[]> {
  const map = new Map<K, V[]>(keys.map((key) => [key, []]));
  for (const row of rows) map.get(keyOf(row))!.push(valueOf(row));
  return map;
}
