"""The site layer's one way to nodes.

``seam``       the interface: resolve selectors, start transitions, read
               states in bulk, enroll, set ``extra``, destroy one node
``conductor``  Ironside's implementation: its conductors and database
"""
