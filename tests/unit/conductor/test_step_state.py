"""The step flow's control state: one typed record, Ironic's keys."""

from __future__ import annotations

import types

from ironside.common import states
from ironside.conductor import cleaning
from ironside.conductor import step_flow
from ironside.conductor.step_state import StepState
from ironside.drivers import step_defs


def _node(info):
    return types.SimpleNamespace(driver_internal_info=info)


def test_read_and_written_under_ironics_keys():
    node = _node({'deploy_steps': [{'step': 'a'}], 'deploy_step_index': 0,
                  'deploy_polling': True, 'deploy_poll_interval': 2.5,
                  'skip_current_deploy_step': False, 'other': 1})
    state = StepState.of(node, step_defs.DEPLOY)
    assert (state.steps, state.index, state.polling, state.poll_interval,
            state.step_finished, state.abort_after_step) == (
        [{'step': 'a'}], 0, True, 2.5, False, False)
    state.waiting_cleared().save_to(node)
    assert node.driver_internal_info == {
        'deploy_steps': [{'step': 'a'}], 'deploy_step_index': 0,
        'other': 1}
    StepState(step_defs.CLEAN, index=3, abort_after_step=True).save_to(node)
    assert node.driver_internal_info['clean_step_index'] == 3
    assert node.driver_internal_info['clean_abort_after'] is True
    state.cleared().save_to(node)
    assert node.driver_internal_info == {
        'other': 1, 'clean_step_index': 3, 'clean_abort_after': True}


def test_steps_say_what_they_want():
    assert step_defs.poll_later(None, 7) == step_defs.Wait(poll=True,
                                                          interval=7.0)
    assert step_defs.poll_later(None) == step_defs.Wait(poll=True)
    assert step_defs.await_callback(None) == step_defs.Wait(poll=False)
    flow = cleaning.CLEAN_FLOW
    # A plugin written before Wait returns the flow's wait state.
    assert step_flow._wait_of(states.CLEANWAIT, flow) == \
        step_defs.Wait(poll=False)
    assert step_flow._wait_of(None, flow) is None
    assert step_flow.poll_interval(StepState(step_defs.CLEAN,
                                             poll_interval=0.5)) == 0.5
