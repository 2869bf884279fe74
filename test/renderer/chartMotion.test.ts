import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h, nextTick } from 'vue';
import { mount } from '@vue/test-utils';
import ChartPanel from '../../src/renderer/components/ChartPanel.vue';
import type { ChartOption } from '../../src/renderer/charts/echarts.js';

/** happy-dom's device setting behind `prefers-reduced-motion`; a resize makes its media lists report the change. */
function systemMotion(value: 'reduce' | 'no-preference'): void {
  (window as unknown as { happyDOM: { settings: { device: { prefersReducedMotion: string } } } }).happyDOM.settings.device.prefersReducedMotion = value;
  window.dispatchEvent(new Event('resize'));
}

/** Stands in for vue-echarts' component (named Echarts): shows the option the panel hands to echarts. */
const VChartProbe = defineComponent({
  props: { option: { type: Object, required: true } },
  setup: (props) => () => h('pre', { class: 'probe' }, JSON.stringify(props.option)),
});

function mountPanel() {
  const option: ChartOption = { series: [{ type: 'bar', data: [1, 2, 3] }] };
  const wrapper = mount(ChartPanel, { props: { option, label: 'Runs per hour' }, global: { stubs: { Echarts: VChartProbe } } });
  return { wrapper, shown: () => JSON.parse(wrapper.get('.probe').text()) as Record<string, unknown> };
}

afterEach(() => systemMotion('no-preference'));

describe('charts and the system reduced-motion preference', () => {
  it('animate briefly by default, draw at once while the user asks for less motion, and follow a change with the page open', async () => {
    const { wrapper, shown } = mountPanel();
    expect(wrapper.get('[role="img"]').attributes('aria-label')).toBe('Runs per hour');
    expect(shown()).toMatchObject({ animationDuration: 300, animationDurationUpdate: 200 });
    expect(shown()).not.toHaveProperty('animation');

    systemMotion('reduce');
    await nextTick();
    expect(shown()).toMatchObject({ animation: false, series: [{ type: 'bar', data: [1, 2, 3] }] });

    systemMotion('no-preference');
    await nextTick();
    expect(shown()).not.toHaveProperty('animation');
  });
});
