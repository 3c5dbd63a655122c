/** A LIKE pattern matching `value` anywhere, with its own % and _ taken literally. */
export function likeContains(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
