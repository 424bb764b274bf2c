"""Database access: models, the enginefacade session and one repository per table."""
