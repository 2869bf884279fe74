import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import type { DesktopBridge } from '../../src/shared/ipcContract.js';
import EnvironmentEditor from '../../src/renderer/desktop/components/EnvironmentEditor.vue';
import ImportExportDialog from '../../src/renderer/desktop/components/ImportExportDialog.vue';
import { createDesktopState } from '../../src/renderer/desktop/desktopState.js';

const env = (id: string, name: string) =>
  ({
    id,
    name,
    baseUrl: `https://${id}.example.com`,
    colour: '#2563eb',
    isProduction: false,
    session: { environmentId: id, auth: 'logged-out', canManage: false, managementEnabled: false, requireAuthentication: true, hasRememberedPassword: false },
    hub: { state: 'idle' },
    live: 'offline',
  }) as unknown as EnvironmentStatusView;

function setup(answers: Record<string, unknown> = {}) {
  const calls: Array<[string, unknown[]]> = [];
  const bridge: DesktopBridge = {
    invoke: ((channel: string, ...args: unknown[]) => {
      calls.push([channel, args]);
      if (channel === 'environments.import' && 'environments.import' in answers) return Promise.resolve({ ok: true, value: (answers['environments.import'] as (a: unknown[]) => unknown)(args) });
      if (channel === 'environments.import') return Promise.resolve({ ok: true, value: { added: 0, updated: 1, removedIds: ['stg', 'qa'], skipped: [] } });
      if (channel === 'environments.list') return Promise.resolve({ ok: true, value: [] });
      return Promise.resolve({ ok: true, value: channel in answers ? answers[channel] : '{}' });
    }) as DesktopBridge['invoke'],
    onEvent: () => () => undefined,
    platform: 'linux',
  };
  const controller = createDesktopState(bridge);
  controller.state.environments = [env('prd', 'Production'), env('stg', 'Staging'), env('qa', 'QA')];
  return { controller, calls };
}

describe('import and export with files, and "Replace all"', () => {
  it('"Replace all" asks first, naming the environments (and saved logins) it removes; only the second click imports', async () => {
    const { controller, calls } = setup();
    const wrapper = mount(ImportExportDialog, { props: { controller } });
    await flushPromises();
    await wrapper.get('[data-testid="import-json"]').setValue(JSON.stringify({ format: 'svc-monitor-environments', version: 1, environments: [{ name: 'production' }] }));
    await wrapper.get('input[value="replace"]').setValue(true);
    expect(wrapper.get('[data-testid="import-run"]').text()).toBe('Replace all…');
    await wrapper.get('[data-testid="import-run"]').trigger('click');
    expect(calls.some(([c]) => c === 'environments.import')).toBe(false);
    expect(wrapper.get('[data-testid="replace-confirm"]').text()).toBe('Replace all removes 2 environments and their saved login: Staging, QA. The others are updated from the list.');
    await wrapper.get('[data-testid="import-run"]').trigger('click');
    await flushPromises();
    expect(calls.filter(([c]) => c === 'environments.import').map(([, a]) => a[1])).toEqual(['replace']);
  });

  it('an import that moves an environment or takes away its production flag shows what changes and imports only on "Import with these changes"; entries left out are named', async () => {
    const answer = (args: unknown[]) =>
      args[2] === true
        ? { added: 0, updated: 1, removedIds: [], skipped: [{ name: 'Corp', reason: 'cannot read /nowhere/ca.pem' }] }
        : { added: 0, updated: 0, removedIds: [], skipped: [], unconfirmed: [{ name: 'Production', changes: ['address https://prd.example.com → https://evil.example', 'no longer production'] }] };
    const { controller, calls } = setup({ 'environments.import': answer });
    const wrapper = mount(ImportExportDialog, { props: { controller } });
    await flushPromises();
    await wrapper.get('[data-testid="import-json"]').setValue('{"format":"svc-monitor-environments","version":1,"environments":[]}');
    await wrapper.get('[data-testid="import-run"]').trigger('click');
    await flushPromises();
    expect(wrapper.get('[data-testid="import-confirm"]').text()).toContain('Production: address https://prd.example.com → https://evil.example; no longer production');
    expect(wrapper.find('[data-testid="import-message"]').exists()).toBe(false);
    await wrapper.get('[data-testid="import-confirm-run"]').trigger('click');
    await flushPromises();
    expect(calls.filter(([c]) => c === 'environments.import').map(([, a]) => a[2])).toEqual([false, true]);
    expect(wrapper.find('[data-testid="import-confirm"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="import-message"]').text()).toBe('Imported: 0 added, 1 updated. Not imported: Corp: cannot read /nowhere/ca.pem.');
  });

  it('Open file… fills the list from the chosen file; Save to file… says where it went', async () => {
    const { controller } = setup({ 'environments.importFile': { path: '/home/ops/envs.json', text: '{"environments":[]}' }, 'environments.exportFile': '/home/ops/out.json' });
    const wrapper = mount(ImportExportDialog, { props: { controller } });
    await flushPromises();
    await wrapper.get('[data-testid="import-file"]').trigger('click');
    await flushPromises();
    expect(wrapper.get<HTMLTextAreaElement>('[data-testid="import-json"]').element.value).toBe('{"environments":[]}');
    await wrapper.get('[data-testid="export-file"]').trigger('click');
    await flushPromises();
    expect(wrapper.get('[data-testid="import-message"]').text()).toBe('Saved to /home/ops/out.json. The list carries no token and no password.');
  });

  it('the CA certificate picker fills the path field, which stays editable', async () => {
    const { controller } = setup({ 'files.pickCaCertificate': '/etc/ssl/certs/company-ca.pem' });
    controller.state.editor = { mode: 'edit', id: 'prd' };
    const wrapper = mount(EnvironmentEditor, { props: { controller, id: 'prd' } });
    await wrapper.get('[data-testid="env-ca-choose"]').trigger('click');
    await flushPromises();
    const field = wrapper.get<HTMLInputElement>('[data-testid="env-ca"]');
    expect(field.element.value).toBe('/etc/ssl/certs/company-ca.pem');
    await field.setValue('/opt/other.pem');
    expect(field.element.value).toBe('/opt/other.pem');
  });
});
