// @backends sqlite — renders the Kubernetes recipes; no store involved.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const KUSTOMIZE = fileURLToPath(new URL('../../../deploy/kubernetes/', import.meta.url));
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
/** The Kustomization fields kustomize 2.0 (Debian bookworm's kubectl 1.20) reads; newer ones (labels, patches with a path) make it fail. */
const KUSTOMIZE_2_FIELDS = new Set(['apiVersion', 'kind', 'bases', 'resources', 'commonLabels', 'patchesStrategicMerge', 'images']);

/** The schema of each kind the recipes may hold; any other kind fails the test. */
const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1 ServiceMonitor': ServiceMonitor,
};

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}
interface Probe {
  httpGet: { path: string; port: string };
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
}
interface Container {
  args: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean; capabilities: { drop: string[] } };
  volumeMounts: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot: boolean; runAsUser: number; seccompProfile: { type: string } };
  containers: Container[];
  volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: object }>;
}

function render(overlay: string): K8sObject[] {
  const r = spawnSync('kubectl', ['kustomize', `${KUSTOMIZE}overlays/${overlay}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${overlay}: ${r.stderr}`);
  return parseAllDocuments(r.stdout).map((d) => d.toJS() as K8sObject);
}

const one = (objects: K8sObject[], kind: string): K8sObject => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found.map((o) => o.metadata.name), kind).toHaveLength(1);
  return found[0]!;
};
const podSpec = (d: K8sObject) => (d.spec.template as { spec: PodSpec; metadata: { labels: Record<string, string> } }).spec;
const podLabels = (d: K8sObject) => (d.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels;
const envOf = (c: Container, name: string) => c.env.find((e) => e.name === name);
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

/** What both overlays must hold: schema-valid objects, probes on the probe paths, a grace above the process's stop budget, non-root. */
function checkCommon(objects: K8sObject[]): { deployment: K8sObject; container: Container } {
  for (const o of objects) {
    const Model = MODELS[`${o.apiVersion} ${o.kind}`];
    expect(Model, `a schema for ${o.apiVersion} ${o.kind}`).toBeDefined();
    expect(() => new Model!(o as never).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
  }
  const deployment = one(objects, 'Deployment');
  const pod = podSpec(deployment);
  const container = pod.containers[0]!;
  expect(container.startupProbe.httpGet).toEqual({ path: '/svc-monitoring/health/live', port: 'http' });
  expect(container.livenessProbe.httpGet).toEqual({ path: '/svc-monitoring/health/live', port: 'http' });
  expect(container.readinessProbe.httpGet).toEqual({ path: '/svc-monitoring/health/ready', port: 'http' });
  // The readiness check's own storage timeout (2 s) fits in the probe's timeout.
  expect(container.readinessProbe.timeoutSeconds).toBeGreaterThan(2);
  // The drain delay outlasts the time the readiness probe needs to notice the 503.
  const drainDelayMs = Number(envOf(container, 'SVC_MONITOR_DRAIN_DELAY_MS')!.value);
  const graceMs = Number(envOf(container, 'SVC_MONITOR_STOP_GRACE_MS')!.value);
  expect(drainDelayMs).toBeGreaterThanOrEqual(container.readinessProbe.periodSeconds * 1000);
  // The kubelet's grace is above the process's stop budget (drain delay + engine grace + 5 s margin).
  expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainDelayMs + graceMs + 5_000);
  expect(pod.securityContext.runAsNonRoot).toBe(true);
  expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
  expect(pod.securityContext.seccompProfile.type).toBe('RuntimeDefault');
  expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
  expect(container.resources.limits.memory).toBeDefined();
  // The Service selects the pods and names the port the probes and the ServiceMonitor use.
  const service = one(objects, 'Service');
  expect(matches(service.spec.selector as Record<string, string>, podLabels(deployment))).toBe(true);
  expect(container.ports.map((p) => p.name)).toContain('http');
  return { deployment, container };
}

describe('deploy/kubernetes: kubectl kustomize, validated against the Kubernetes schemas', () => {
  it('kubectl runs here (npm run setup installs Debian\'s kubernetes-client when it is missing)', () => {
    expect(kubectl.error?.message, 'kubectl version --client').toBeUndefined();
  });

  it.each(['base', 'overlays/sqlite', 'overlays/postgres'])('%s keeps to the fields kustomize 2.0 renders (Debian\'s kubectl 1.20)', (dir) => {
    const kustomization = parseAllDocuments(readFileSync(`${KUSTOMIZE}${dir}/kustomization.yaml`, 'utf8'))[0]!.toJS() as Record<string, unknown>;
    expect(Object.keys(kustomization).filter((k) => !KUSTOMIZE_2_FIELDS.has(k))).toEqual([]);
  });

  it('sqlite: one replica, Recreate, the SQLite file on a PersistentVolumeClaim', () => {
    const objects = render('sqlite');
    const { deployment, container } = checkCommon(objects);
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    const claim = one(objects, 'PersistentVolumeClaim');
    const data = podSpec(deployment).volumes.find((v) => v.name === 'data')!;
    expect(data).toEqual({ name: 'data', persistentVolumeClaim: { claimName: claim.metadata.name } });
    const mount = container.volumeMounts.find((m) => m.name === 'data')!;
    expect(envOf(container, 'SVC_MONITOR_DB')!.value!.startsWith(`${mount.mountPath}/`)).toBe(true);
    expect(objects.map((o) => o.kind).sort()).toEqual(['Deployment', 'PersistentVolumeClaim', 'Service']);
  });

  it('postgres: several replicas on the connection string from a Secret, a PodDisruptionBudget and a ServiceMonitor on the metrics path', () => {
    const objects = render('postgres');
    const { deployment, container } = checkCommon(objects);
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(envOf(container, 'SVC_MONITOR_DB')!.value).toBe('');
    expect(envOf(container, 'SVC_MONITOR_DATABASE')!.valueFrom!.secretKeyRef).toEqual({ name: 'svc-monitor-postgres', key: 'url' });
    const pdb = one(objects, 'PodDisruptionBudget');
    expect(matches((pdb.spec.selector as { matchLabels: Record<string, string> }).matchLabels, podLabels(deployment))).toBe(true);
    const monitor = one(objects, 'ServiceMonitor');
    const service = one(objects, 'Service');
    expect(matches((monitor.spec.selector as { matchLabels: Record<string, string> }).matchLabels, service.metadata.labels ?? {})).toBe(true);
    const [endpoint] = monitor.spec.endpoints as Array<{ port: string; path: string }>;
    expect(endpoint!.path).toBe('/svc-monitoring/metrics');
    expect((service.spec.ports as Array<{ name: string }>).map((p) => p.name)).toContain(endpoint!.port);
  });
});
