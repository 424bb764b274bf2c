"""Following the clusters: the partitioned status sync, health polls, the hash ring."""
