-- Temporal keeps its own databases on the same server, under its own role.
CREATE ROLE temporal LOGIN PASSWORD 'temporal' CREATEDB;
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
