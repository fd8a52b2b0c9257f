"""The links room: ``ade://`` deep links (building, parsing), their targets, and detail context."""
