"""The merchant's audit log (DESIGN 20): who changed what, when and from where;
append-only, removed only by its retention job."""
