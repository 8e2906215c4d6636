"""Seating an agent: the options it declares, checked before any seat is taken, and the agent arena itself seats.

* ``arena.seating.options``: what an agent declares it accepts (``AgentOptions``, documented as
  ``arena.options``) and the check every way of seating it runs first;
* ``arena.seating.substitute``: the agent ``random``, every game's uniform random policy, which the referee
  seats after a fault.

The ``Agent`` base class itself is ``arena.agent``, the entry point plugin authors import.  This package
imports none of its modules, so that ``arena.agent`` can import the options without loading the random agent,
which imports ``arena.agent``.
"""
