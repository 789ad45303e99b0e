"""Staff access to a person's data: content masked in admin, reveals with a reason, and the record the person sees."""
