"""The operator's tools: the ``paiju.v1.AdminService`` service and the ``paiju admin`` command.

- :mod:`~paiju.admin.audit`: the audit log of operators' actions (appended to and listed only);
- :mod:`~paiju.admin.suspensions`: which accounts are suspended, in the ledger and the tables' copy;
- :mod:`~paiju.admin.login_gate`: a suspended account's login refused, in front of ``WalletService.Login``;
- :mod:`~paiju.admin.operations`: the domain: each read and action, actions written to the log;
- :mod:`~paiju.admin.service`: the thin gRPC servicer (operator tokens only) and its binding;
- :mod:`~paiju.admin.cli`: ``paiju admin token`` and a subcommand per RPC.
"""
