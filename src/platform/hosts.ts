/** Host names and origins in one comparable form, for the settings that list them and the check of /mcp's callers. */

// A host name or IPv4 address, or a bracketed IPv6 address, then an optional port. Anything else
// (user info, paths, spaces) is refused before the URL parser can read it in some other way.
const HOST_SYNTAX = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/i;

/**
 * `name[:port]` in one comparable form: lower case, IPv6 as the URL parser writes it, and the
 * default ports (80, 443) dropped, since a Host header leaves them out and the scheme in front
 * of a TLS-terminating proxy is not known here. null when it is not a host.
 */
export function hostKey(value: string): string | null {
  const trimmed = value.trim();
  if (!HOST_SYNTAX.test(trimmed)) return null;
  try {
    const url = new URL(`http://${trimmed}`);
    const port = url.port === '' || url.port === '80' || url.port === '443' ? '' : `:${url.port}`;
    return `${url.hostname}${port}`;
  } catch {
    return null;
  }
}

/** `scheme://host[:port]` of an http(s) origin, or null (also for "null" and anything with a path). */
export function originKey(value: string): string | null {
  try {
    const url = new URL(value.trim());
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : null;
  } catch {
    return null;
  }
}
