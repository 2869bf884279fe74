/** Text for XML: the five characters with a meaning there, escaped. */
function xmlText(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/**
 * A Windows toast that opens `link` when clicked. Windows starts the link through the app's
 * registered protocol (the second instance hands it over), so the click still works after the
 * toast moved to the Action Center or the app restarted — a click handler in the process does not.
 */
export function windowsToastXml(notification: { title: string; body: string; isProduction: boolean }, link: string): string {
  return [
    `<toast activationType="protocol" launch="${xmlText(link)}"${notification.isProduction ? ' scenario="urgent"' : ''}>`,
    '<visual><binding template="ToastGeneric">',
    `<text>${xmlText(notification.title)}</text>`,
    `<text>${xmlText(notification.body)}</text>`,
    '</binding></visual>',
    '</toast>',
  ].join('');
}
