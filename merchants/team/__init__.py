"""A merchant is a team (DESIGN section 20): members with roles, each signing in
on their own. Layers: roles (the permission table) <- models <- selectors <-
services; the dashboard and the API read the table through `roles.may`."""
