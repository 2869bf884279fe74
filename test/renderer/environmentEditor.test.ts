import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import type { DesktopBridge } from '../../src/shared/ipcContract.js';
import EnvironmentEditor from '../../src/renderer/desktop/components/EnvironmentEditor.vue';
import { createDesktopState } from '../../src/renderer/desktop/desktopState.js';

function view(extra: Partial<EnvironmentStatusView> = {}): EnvironmentStatusView {
  return {
    id: 'lab',
    name: 'Lab',
    baseUrl: 'https://lab.example.com',
    colour: '#2563eb',
    isProduction: false,
    session: { environmentId: 'lab', auth: 'logged-out', canManage: false, managementEnabled: false, requireAuthentication: true, hasRememberedPassword: false },
    hub: { state: 'idle' },
    live: 'offline',
    ...extra,
  } as EnvironmentStatusView;
}

/** The editor over a bridge that records every call (structured-cloned, as contextBridge does) and answers `refuse` for updates when given. */
function editor(env: EnvironmentStatusView, refuse?: string) {
  const calls: Array<[string, unknown[]]> = [];
  const bridge: DesktopBridge = {
    invoke: ((channel: string, ...args: unknown[]) => {
      calls.push([channel, structuredClone(args)]);
      if (refuse && channel === 'environments.update') return Promise.resolve({ ok: false, error: { code: 'invalid-arguments', message: refuse } });
      if (channel === 'environments.list') return Promise.resolve({ ok: true, value: [env] });
      return Promise.resolve({ ok: true, value: env });
    }) as DesktopBridge['invoke'],
    onEvent: () => () => undefined,
    platform: 'linux',
  };
  const controller = createDesktopState(bridge);
  controller.state.environments = [env];
  controller.state.editor = { mode: 'edit', id: env.id };
  const wrapper = mount(EnvironmentEditor, { props: { controller, id: env.id } });
  const updates = () => calls.filter(([c]) => c === 'environments.update').map(([, a]) => a[1] as Record<string, unknown>);
  return { wrapper, controller, updates };
}

describe('environment editor: HTTPS certificate settings', () => {
  it('saves a CA certificate file and "allow self-signed" for a non-production environment', async () => {
    const { wrapper, updates } = editor(view());
    const selfSigned = wrapper.get<HTMLInputElement>('[data-testid="env-self-signed"]');
    expect(selfSigned.element.disabled).toBe(false);
    expect(wrapper.get('[data-testid="env-self-signed-hint"]').text()).toBe('For test and lab hosts only: the connection is encrypted but the host is not verified.');
    await wrapper.get('[data-testid="env-ca"]').setValue('  /etc/ssl/certs/company-ca.pem ');
    await selfSigned.setValue(true);
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(updates()).toEqual([expect.objectContaining({ caCertificatePath: '/etc/ssl/certs/company-ca.pem', allowSelfSigned: true, isProduction: false })]);
  });

  it('shows the stored values, and an emptied path is sent as empty (which removes the file)', async () => {
    const { wrapper, updates } = editor(view({ caCertificatePath: '/opt/ca.pem', allowSelfSigned: true }));
    expect(wrapper.get<HTMLInputElement>('[data-testid="env-ca"]').element.value).toBe('/opt/ca.pem');
    expect(wrapper.get<HTMLInputElement>('[data-testid="env-self-signed"]').element.checked).toBe(true);
    await wrapper.get('[data-testid="env-ca"]').setValue('');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(updates()[0]).toMatchObject({ caCertificatePath: '', allowSelfSigned: true });
  });

  it('for production, "allow self-signed" is unticked and disabled with the reason shown', async () => {
    const { wrapper, updates } = editor(view({ allowSelfSigned: true }));
    await wrapper.get('[data-testid="env-production"]').setValue(true);
    const selfSigned = wrapper.get<HTMLInputElement>('[data-testid="env-self-signed"]');
    expect(selfSigned.element.checked).toBe(false);
    expect(selfSigned.element.disabled).toBe(true);
    expect(selfSigned.attributes('aria-describedby')).toBe('env-self-signed-hint');
    expect(wrapper.get('#env-self-signed-hint').text()).toBe('Not available for a production environment: add its CA certificate file instead.');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(updates()[0]).toMatchObject({ isProduction: true, allowSelfSigned: false });
  });

  it('shows main\'s reason when the CA file cannot be used, and stays open', async () => {
    const reason = 'caCertificatePath: cannot read "/etc/ssl/certs/missing.pem": no such file';
    const { wrapper, controller } = editor(view(), reason);
    await wrapper.get('[data-testid="env-ca"]').setValue('/etc/ssl/certs/missing.pem');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[data-testid="env-error"]').text()).toBe(reason);
    expect(controller.state.editor).toEqual({ mode: 'edit', id: 'lab' });
  });
});

describe('environment editor: production at http://', () => {
  it('warns that it is not encrypted and sends the typed name for main to check; https needs nothing', async () => {
    const { wrapper, updates } = editor(view({ baseUrl: 'http://ops.example.com', name: 'Prod' }));
    expect(wrapper.find('[data-testid="env-insecure"]').exists()).toBe(false);
    await wrapper.get('[data-testid="env-production"]').setValue(true);
    expect(wrapper.get('[data-testid="env-insecure"]').text()).toContain('Not encrypted.');
    await wrapper.get('[data-testid="env-insecure-confirm"]').setValue(' Prod ');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(updates()[0]).toMatchObject({ isProduction: true, insecureHttpConfirmedName: 'Prod' });
    await wrapper.get('[data-testid="env-url"]').setValue('https://ops.example.com');
    expect(wrapper.find('[data-testid="env-insecure"]').exists()).toBe(false);
  });
});
