"""The watchdog: fires due deadlines and notices players whose connection went quiet.

Any number of replicas share the work through Redis; each deadline and each silence is claimed
by exactly one of them, and the owner's stamp check makes a repeated firing harmless.
"""
