package peers
