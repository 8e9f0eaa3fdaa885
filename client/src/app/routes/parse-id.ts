/** A route id segment as a positive integer, or null when it is missing or not a plain number. */
export function parseRouteId(value: string | undefined): number | null {
  if (!value || !/^\d+$/.test(value)) return null;
  const id = Number.parseInt(value, 10);
  return id > 0 && id <= 2_147_483_647 ? id : null;
}
