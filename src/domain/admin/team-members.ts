/** Team members as the admin API and list_team show them. */
export interface PersonRow {
  id: string;
  name: string;
  role: string;
  email: string | null;
  /** jsonb: drivers hand it back parsed or as text. */
  responsibilities: string[] | string;
}

export const PERSON_COLUMNS = ['id', 'name', 'role', 'email', 'responsibilities'] as const;

export function toTeamMember(row: PersonRow): {
  id: string;
  name: string;
  role: string;
  email: string | null;
  responsibilities: string[];
} {
  const responsibilities =
    typeof row.responsibilities === 'string'
      ? (JSON.parse(row.responsibilities) as string[])
      : row.responsibilities;
  return { id: row.id, name: row.name, role: row.role, email: row.email, responsibilities };
}

/** A list as kept: trimmed, without empty or repeated entries. */
export function cleanResponsibilities(list: string[] | undefined): string | undefined {
  if (list === undefined) return undefined;
  const seen = new Set<string>();
  return JSON.stringify(
    list
      .map((item) => item.trim())
      .filter((item) => item && !seen.has(item.toLowerCase()) && seen.add(item.toLowerCase())),
  );
}
