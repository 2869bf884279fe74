import type { IpcChannelName } from '../../../src/shared/ipcContract.js';

/** An argument list main must refuse, and what the error message must say about it. */
export type BadArguments = [args: unknown[], says: RegExp];

/** For every channel: argument lists that main must refuse, each with the words that explain why. */
export const BAD_ARGUMENTS: Record<IpcChannelName, BadArguments[]> = {
  'environments.list': [[['extra'], /expects 0 arguments, received 1/]],
  'environments.add': [
    [[], /expects 1 argument, received 0/],
    [[{ name: 'x' }], /argument 1 baseUrl: .*argument 1 colour: .*argument 1 isProduction: /],
    [[{ name: 'x', baseUrl: 'file:///etc/passwd', colour: '#000000', isProduction: false }], /argument 1 baseUrl: baseUrl must be an http:\/\/ or https:\/\/ URL/],
    [[{ name: 'x', baseUrl: 'http://h', colour: '#000000', isProduction: 'yes' }], /argument 1 isProduction: .*expected boolean/],
  ],
  'environments.update': [
    [['../../etc', {}], /argument 1: must be an environment id/],
    [['abc', { baseUrl: 'javascript:alert(1)' }], /argument 2 baseUrl: /],
    [['abc', { unknown: 1 }], /argument 2: Unrecognized key: "unknown"/],
  ],
  'environments.remove': [
    [[42], /argument 1: .*expected string/],
    [['a b'], /argument 1: must be an environment id/],
    [[], /expects 1 argument, received 0/],
  ],
  'environments.reorder': [
    [['abc'], /argument 1: .*expected array/],
    [[[1, 2]], /argument 1 0: .*expected string/],
  ],
  'environments.export': [[[1], /expects 0 arguments, received 1/]],
  'environments.import': [
    [['{}'], /expects 2 arguments, received 1/],
    [['{}', 'overwrite'], /argument 2: .*"merge"\|"replace"/],
    [['x'.repeat(1_000_001), 'merge'], /argument 1: import is larger than 1 MB/],
  ],
  'session.get': [[[null], /argument 1: .*expected string/]],
  'session.loginPassword': [
    [['abc', { username: 'a', password: 'b' }], /argument 2 remember: .*expected boolean/],
    [['abc', { username: '', password: 'b', remember: false }], /argument 2 username: /],
    [['abc', { username: 'a', password: 'b', remember: true, token: 'x' }], /argument 2: Unrecognized key: "token"/],
  ],
  'session.loginMagic': [
    [['abc', ''], /argument 2: /],
    [['abc', 7], /argument 2: .*expected string/],
  ],
  'session.logout': [[[{}], /argument 1: .*expected string/]],
  'session.retry': [[['abc', 'extra'], /expects 1 argument, received 2/]],
  'api.call': [
    [['abc', 'auth.login', {}], /argument 2: /],
    [['abc', 'tasks.get', 'id'], /argument 3: .*expected record/],
    [['abc', 'not.an.operation', {}], /argument 2: /],
    [['abc', 'tasks.list'], /expects 3 arguments, received 2/],
  ],
  'api.manage': [
    [['abc', 'tasks.list', {}, 'Production'], /argument 2: /],
    [['abc', 'management.cancel', {}], /expects 4 arguments, received 3/],
    [['abc', 'management.cancel', {}, 7], /argument 4: .*expected string/],
  ],
  'inbox.list': [
    [[], /expects 1 argument, received 0/],
    [[{ environmentId: 5 }], /argument 1 environmentId: .*expected string/],
    [[{ unread: true }], /argument 1: Unrecognized key: "unread"/],
  ],
  'inbox.markRead': [
    [[{ ids: 'all' }], /argument 1 ids: .*expected array/],
    [[{ ids: [1] }], /argument 1 ids.0: .*expected string/],
  ],
  'notifications.getSettings': [[[{}], /expects 0 arguments, received 1/]],
  'notifications.setSettings': [
    [[{ scope: 'some', chosenEnvironmentIds: [], mutedEnvironmentIds: [] }], /argument 1 scope: /],
    [[{ scope: 'all' }], /argument 1 chosenEnvironmentIds: .*argument 1 mutedEnvironmentIds: /],
  ],
  'vault.status': [[['x'], /expects 0 arguments, received 1/]],
  'deepLink.open': [
    [[{}], /argument 1: .*expected string/],
    [['x'.repeat(3000)], /argument 1: Too big/],
  ],
  'files.pickCaCertificate': [[['x'], /expects 0 arguments, received 1/]],
  'environments.importFile': [[['/etc/passwd'], /expects 0 arguments, received 1/]],
  'environments.exportFile': [[['/tmp/x.json'], /expects 0 arguments, received 1/]],
  'proxy.answer': [
    [['p1'], /expects 2 arguments, received 1/],
    [['p1', { username: '', password: 'x', remember: false }], /argument 2 username: /],
  ],
  'window.ready': [[['x'], /expects 0 arguments, received 1/]],
  'shell.openExternal': [
    [['file:///etc/passwd'], /argument 1: must be an http\(s\) URL/],
    [['javascript:alert(1)'], /argument 1: must be an http\(s\) URL/],
    [['smb://host/share'], /argument 1: must be an http\(s\) URL/],
    [['not a url'], /argument 1: must be an http\(s\) URL/],
  ],
};
