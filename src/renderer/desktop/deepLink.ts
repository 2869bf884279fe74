/**
 * The link "Copy link" puts on the clipboard: `svc-monitor://<environment>/<route>`, e.g.
 * `svc-monitor://Production/tasks/<id>` or `svc-monitor://Production/tasks?status=Failed`.
 * Opening it (another console, a chat message, a ticket) shows the same page and filters.
 */
export function formatRouteLink(environmentName: string, route: string): string {
  const path = route.startsWith('/') ? route : `/${route}`;
  return `svc-monitor://${encodeURIComponent(environmentName)}${path}`;
}
