"""Success criteria, judged on a group's full node set."""

from __future__ import annotations

from ironside.strategy.core.criteria import SuccessCriteria

GROUP = ['n1', 'n2', 'n3', 'n4']


def failures(criteria, successful, nodes=GROUP):
    return SuccessCriteria.from_dict(criteria).failures(nodes, successful)


def test_no_criteria_always_succeeds():
    assert failures({}, []) == []
    assert failures(None, []) == []


def test_percent():
    assert failures({'percent_successful_nodes': 75}, GROUP[:3]) == []
    assert failures({'percent_successful_nodes': 79}, GROUP[:3]) == [
        {'criterion': 'percent_successful_nodes', 'needed': 79,
         'actual': 75.0}]


def test_minimum():
    assert failures({'minimum_successful_nodes': 2}, GROUP[:2]) == []
    assert failures({'minimum_successful_nodes': 3}, GROUP[:2]) == [
        {'criterion': 'minimum_successful_nodes', 'needed': 3,
         'actual': 2}]


def test_maximum_failed():
    assert failures({'maximum_failed_nodes': 1}, GROUP[:3]) == []
    assert failures({'maximum_failed_nodes': 1}, GROUP[:2]) == [
        {'criterion': 'maximum_failed_nodes', 'needed': 1, 'actual': 2}]


def test_each_criterion_is_judged_on_its_own():
    criteria = {'percent_successful_nodes': 90,
                'minimum_successful_nodes': 3,
                'maximum_failed_nodes': 1}
    assert failures(criteria, GROUP) == []
    assert failures(criteria, GROUP[:3]) == [
        {'criterion': 'percent_successful_nodes', 'needed': 90,
         'actual': 75.0}]
    assert [f['criterion'] for f in failures(criteria, GROUP[:1])] == [
        'percent_successful_nodes', 'minimum_successful_nodes',
        'maximum_failed_nodes']


def test_successes_outside_the_group_do_not_count():
    assert failures({'minimum_successful_nodes': 2},
                    ['n1', 'other1', 'other2']) == [
        {'criterion': 'minimum_successful_nodes', 'needed': 2,
         'actual': 1}]


def test_empty_group_is_100_percent_but_fails_a_minimum():
    criteria = {'percent_successful_nodes': 100, 'maximum_failed_nodes': 0}
    assert failures(criteria, [], nodes=[]) == []
    assert failures({'minimum_successful_nodes': 1}, [], nodes=[]) == [
        {'criterion': 'minimum_successful_nodes', 'needed': 1,
         'actual': 0}]
    assert failures({'minimum_successful_nodes': 0}, [], nodes=[]) == []
