"""Input validation the API performs before anything is written or sent to a conductor."""
