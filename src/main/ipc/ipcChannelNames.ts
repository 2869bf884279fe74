/**
 * Channel names of the preload bridge. Kept free of dependencies: the sandboxed CommonJS
 * preload bundles this file (and nothing heavier) to refuse unknown channels early; main
 * validates every argument list again against IPC_ARGUMENTS.
 */
export const IPC_CHANNEL_NAMES = [
  'environments.list',
  'environments.add',
  'environments.update',
  'environments.remove',
  'environments.reorder',
  'environments.export',
  'environments.import',
  'session.get',
  'session.loginPassword',
  'session.loginMagic',
  'session.logout',
  'session.retry',
  'api.call',
  'inbox.list',
  'inbox.markRead',
  'notifications.getSettings',
  'notifications.setSettings',
  'vault.status',
  'deepLink.open',
  'shell.openExternal',
] as const;

export type IpcChannelName = (typeof IPC_CHANNEL_NAMES)[number];

/** Prefix of every invoke channel on the wire. */
export const IPC_PREFIX = 'svc-monitor:';
/** The one channel main uses to push RendererEvents. */
export const RENDERER_EVENT_CHANNEL = 'svc-monitor:event';
/** Name of the bridge on `window`. */
export const BRIDGE_GLOBAL = 'svcMonitor';
