"""The warehouse home (`AKW_HOME`) and its records: lake, unit state, generations, run log, outbox,
feedback, tombstones, access counter, trust, spill folders, schedule record and status.

The generations and the lake are derived and deletable; the outbox, feedback and tombstones are the
warehouse's own records and outlive every rebuild.
"""
